/**
 * The approval hooks' entries in the run's audit trail: the question shown, each answer with the
 * person who gave it, and the grant that let a call through without a question. A write that fails
 * fails the step (a question is not shown, an answer is not acted on, without its record).
 *
 * @module
 */
import { runAudit } from "../../agent/audit/audit-record.js";
import type { AuditDecisionRecord, AuditLog } from "../../agent/audit/audit.js";
import { jsonDigest } from "../../agent/audit/digest.js";
import type { BeforeToolCallEvent } from "../../agent/events.js";

/** The call being gated: a `BeforeToolCallEvent` (InterruptHook) or a `ToolContext` (ToolApprovalHook). */
export type AuditedCall = Pick<BeforeToolCallEvent, "agent" | "invocationState" | "toolUse">;
import { runContext } from "../../agent/run-context.js";

const principalOf = (event: AuditedCall): string | null => runContext.principal.find(event.invocationState) || null;

/** What a gate showed. */
export interface ShownRequest {
  interruptId: string;
  rule: string;
  input: unknown;
  subject: { key: string; label: string } | null;
  expiresAt: string | undefined;
  /** Approvals needed. Default 1. */
  required?: number;
  /** Who asked (a four-eyes question's `requestedBy`). Default: the run's requester, else its principal. */
  requestedBy?: string | null;
}

/**
 * Records that a question is about to be shown.
 * @param event - The gated call.
 * @param shown - The interrupt, the rule, the arguments shown, subject, deadline.
 */
export async function auditRequest(event: AuditedCall, shown: ShownRequest): Promise<void> {
  const audit = runAudit(event.agent, event.invocationState);
  if (!audit) return;
  // An approver's run on another person's thread asks on that person's behalf: the entry names them.
  const drivenBy = principalOf(event);
  const asker =
    shown.requestedBy !== undefined ? shown.requestedBy : runContext.requester.find(event.invocationState) || drivenBy;
  await audit.append({
    kind: "request",
    tool: event.toolUse.name,
    toolUseId: event.toolUse.toolUseId,
    interruptId: shown.interruptId,
    argsDigest: jsonDigest(shown.input),
    subject: shown.subject,
    rule: shown.rule,
    principal: asker,
    expiresAt: shown.expiresAt ?? null,
    required: shown.required ?? 1,
    ...(drivenBy !== null && drivenBy !== asker ? { drivenBy } : {}),
  });
}

/** An answer as the gate read it. */
export interface ReadDecision {
  interruptId: string;
  decision: AuditDecisionRecord["decision"];
  scope?: AuditDecisionRecord["scope"] | undefined;
  editedArgs?: unknown;
  note?: string | undefined;
  /** Who answered. Default: the run's principal. */
  principal?: string | null | undefined;
}

/**
 * Records an answer, with the resume entry's `metadata.signature` when the page sent one.
 * @param event - The gated call.
 * @param read - The interrupt, the decision, its scope, the edits and a note.
 */
export async function auditDecision(event: AuditedCall, read: ReadDecision): Promise<void> {
  const audit = runAudit(event.agent, event.invocationState);
  if (!audit) return;
  const metadata = runContext.resumeMetadata.find(event.invocationState)?.[read.interruptId];
  const signature = (metadata as { signature?: unknown } | undefined)?.signature;
  const record: AuditDecisionRecord = {
    kind: "decision",
    tool: event.toolUse.name,
    toolUseId: event.toolUse.toolUseId,
    interruptId: read.interruptId,
    principal: read.principal === undefined ? principalOf(event) : read.principal,
    decision: read.decision,
    scope: read.scope ?? null,
    editsDigest: read.editedArgs === undefined ? null : jsonDigest(read.editedArgs),
    signature: typeof signature === "string" ? signature.slice(0, 4096) : null,
    note: read.note ?? null,
  };
  // A run continued after a reload (or after an outcome question) reads the answers it was given again: the
  // answer stands in the trail once. Watchers still see it, on the run that acts on it.
  if (read.decision !== "refused" && audit.log && (await recorded(audit.log, audit.threadId, record)))
    return audit.tell?.(record);
  await audit.append(record);
}

/**
 * Whether the thread's trail already holds this answer: the same person's same answer to the same question
 * (its scope, edits and signature included). A refusal is not looked up: each attempt that did not count is its
 * own event. Read only when an answer is acted on, at the pace people answer.
 */
async function recorded(log: AuditLog, threadId: string, record: AuditDecisionRecord): Promise<boolean> {
  const entries = await log.entries(threadId);
  return entries.some(
    (e) =>
      e.kind === "decision" &&
      e.interruptId === record.interruptId &&
      e.toolUseId === record.toolUseId &&
      e.principal === record.principal &&
      e.decision === record.decision &&
      e.scope === record.scope &&
      e.editsDigest === record.editsDigest &&
      e.signature === record.signature,
  );
}

/**
 * Records that a grant let the call through without a question.
 * @param event - The gated call.
 * @param grantId - The grant's id, or `undefined` for an approval given earlier in this run.
 */
export async function auditGrantUse(event: AuditedCall, grantId: string | undefined): Promise<void> {
  const audit = runAudit(event.agent, event.invocationState);
  if (!audit) return;
  await audit.append({
    kind: "grant_use",
    tool: event.toolUse.name,
    toolUseId: event.toolUse.toolUseId,
    grantId: grantId ?? `run:${event.toolUse.name}`,
    source: grantId === undefined ? "run" : "grant",
    principal: principalOf(event),
  });
}
