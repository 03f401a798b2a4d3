/**
 * Edited arguments for the AI SDK: the person's edit travels in the approval's reason (the one field
 * the AI SDK passes through besides `approved`); `kabooToolApproval` checks it against the tool's
 * input schema, denies it when it changes what the call is about, and keeps it in the decision it
 * records in the ledger; `withLedger` reads that decision (by the approval the call's messages carry)
 * and runs the call with the edit, under the approved call's ledger key.
 *
 * @module
 */
import type { ToolExecutionOptions, ToolSet } from "ai";
import type { RunAudit } from "../agent/audit/audit-record.js";
import type { ExecutionLedger } from "../agent/ledger/ledger.js";
import type { JsonValue } from "../agent/messages/messages.js";
import type { Rule } from "../hooks/approval/gate-rule.js";
import { callSubject, type CallSubject } from "../hooks/approval/subject.js";
import type { Logger } from "../logger.js";
import { answerFor, reasonEdit } from "./answer.js";
import { auditAnswer } from "./audit.js";
import { ApprovalEditError } from "./errors.js";
import { decisionKey, readKept, type Decided } from "./records.js";

type Checked = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Checks edited arguments the way the AI SDK checks a model's input: an object that passes the
 * tool's `inputSchema` (zod, standard or JSON schema, through the AI SDK's own `asSchema`; a JSON
 * schema without a validator accepts any object, as the AI SDK does).
 * @param tool - The tool (`undefined`: not in the tool set; only the object check applies).
 * @param edited - The edit (untrusted).
 * @returns The validated value, or why it is invalid.
 */
export async function validateEdit(tool: ToolSet[string] | undefined, edited: unknown): Promise<Checked> {
  if (edited === null || typeof edited !== "object" || Array.isArray(edited))
    return { ok: false, error: "the edited arguments are not an object" };
  if (tool?.inputSchema == null) return { ok: true, value: edited };
  // Loaded with the first edit only: the entry itself imports nothing of "ai" but its types, so it loads
  // (and a bundle carries it) without the AI SDK until an answer edits a call.
  const { asSchema } = await import("ai");
  const validate = asSchema(tool.inputSchema).validate;
  if (!validate) return { ok: true, value: edited };
  const result = await validate(structuredClone(edited));
  return result.success ? { ok: true, value: result.value } : { ok: false, error: result.error.message };
}

/** The call an edit is checked for, and where a refusal is recorded. */
export interface EditCheck {
  tools: ToolSet | undefined;
  toolCall: { toolName: string; toolCallId: string; input: unknown };
  rule: Rule;
  /** The subject of the call as the model made it (what the person was asked about). */
  subject: CallSubject;
  principal: string | undefined;
  audit: RunAudit | undefined;
  log: Logger;
}

/** An edit that passed the tool's schema. */
export interface CheckedEdit {
  /** The edit as the person sent it (what the decision keeps and the audit trail digests). */
  editedArgs: JsonValue;
  /** The edited call's subject when it differs from the one asked about, else `null`. */
  changed: CallSubject | null;
}

/**
 * Checks the edit an approval carries (schema, four eyes) and finds whether it changes the call's
 * subject (the rule's `subject` function on the edited arguments, as `InterruptHook` does).
 * @param c - The call, its rule and subject, and the audit trail.
 * @param edited - The edit (untrusted).
 * @returns The edit and the changed subject, if any.
 * @throws ApprovalEditError (recorded as a `refused` decision) when the edit is not an object, fails
 *   the schema, or answers a four-eyes rule.
 */
export async function checkedEdit(c: EditCheck, edited: unknown): Promise<CheckedEdit> {
  const { toolName, toolCallId } = c.toolCall;
  const refuse = async (problem: "invalid" | "four-eyes", note: string, detail: string): Promise<never> => {
    await auditAnswer(c.audit, c.principal, c.toolCall, "refused", null, note, edited);
    throw new ApprovalEditError(toolName, toolCallId, problem, detail);
  };
  if (c.rule.approvals)
    return refuse(
      "four-eyes",
      "four eyes take no edits",
      "a rule with four eyes runs the arguments its approvers signed.",
    );
  const tool = c.tools && Object.hasOwn(c.tools, toolName) ? c.tools[toolName] : undefined;
  const checked = await validateEdit(tool, edited);
  if (!checked.ok) return refuse("invalid", "the edited arguments are invalid", checked.error);
  const subject = callSubject(c.rule.subject, toolName, checked.value, c.log);
  const changed = subject !== null && subject.key !== c.subject.key ? subject : null;
  return { editedArgs: edited as JsonValue, changed };
}

/**
 * The decision of an approval whose edit changes the call's subject: not approved (the approval was
 * for the subject asked about), recorded as `refused` with the edit. The AI SDK cannot ask about an
 * approved call again, so the note tells the model to make the edited call, which is then asked.
 * @param c - The call and audit trail.
 * @param edit - The checked edit.
 * @param call - The call's execution key.
 */
export async function changedSubjectDecision(c: EditCheck, edit: CheckedEdit, call: string): Promise<Decided> {
  const note = `The person's edit changes what the call to "${c.toolCall.toolName}" is about (now ${edit.changed?.label}), which the approval did not cover, so it did not run. Make the call again with the edited arguments to ask about it.`;
  await auditAnswer(
    c.audit,
    c.principal,
    c.toolCall,
    "refused",
    null,
    "the edit changes the subject: ask again",
    edit.editedArgs,
  );
  return { approved: false, note, call };
}

/**
 * Whether a call's messages end with an approval of it that carries edited arguments (checked without
 * a promise, so a call without one is claimed at once).
 * @param options - The AI SDK's execution options (the call id and the messages it runs after).
 */
export function carriesEdit(options: Pick<ToolExecutionOptions<unknown>, "toolCallId" | "messages">): boolean {
  const answer = Array.isArray(options.messages) ? answerFor(options.messages, options.toolCallId) : undefined;
  return answer?.approved === true && reasonEdit(answer.reason) !== undefined;
}

/**
 * The arguments a ledgered call runs with: the person's edit when the approval it runs under carries
 * one (found by the approval in the call's messages, read from the decision `kabooToolApproval`
 * recorded for this very call), else `undefined` (the model's own).
 * @param c - The ledger and thread both sides share, the tool and the call's execution key.
 * @param options - The AI SDK's execution options (the call id and the messages it runs after).
 * @throws ApprovalEditError when the approval carries an edit and no decision recorded it for this
 *   call (another ledger or thread, an edit the gate did not check): it does not run the model's arguments.
 */
export async function approvedEdit(
  c: { ledger: ExecutionLedger; threadId: string; name: string; tool: ToolSet[string]; key: string },
  options: Pick<ToolExecutionOptions<unknown>, "toolCallId" | "messages">,
): Promise<unknown> {
  const answer = Array.isArray(options.messages) ? answerFor(options.messages, options.toolCallId) : undefined;
  if (answer?.approved !== true || reasonEdit(answer.reason) === undefined) return undefined;
  const decided = (await readKept(c.ledger, decisionKey(c.threadId, answer.approvalId))) as Decided | undefined;
  const refuse = (problem: "invalid" | "not-recorded", detail: string) =>
    new ApprovalEditError(c.name, options.toolCallId, problem, detail);
  if (decided?.approved !== true || decided.call !== c.key || decided.editedArgs === undefined)
    throw refuse(
      "not-recorded",
      "no approval of this call with this edit is recorded in the ledger (give kabooToolApproval and withLedger the same ledger and threadId).",
    );
  const checked = await validateEdit(c.tool, decided.editedArgs);
  if (!checked.ok) throw refuse("invalid", checked.error);
  return checked.value;
}
