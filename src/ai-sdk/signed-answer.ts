/**
 * Signed approvals for the AI SDK: an approval reason that carries an HMAC binding its scope to the
 * person who answered and to the call (thread, call id, arguments), made where the person is
 * authenticated and checked by `kabooToolApproval` when it has a `secret`. The AI SDK's own
 * `experimental_toolApprovalSecret` binds its approval request to the call; the reason (our scope)
 * is not covered by it. Edited arguments, when the person sent some, are signed with the scope. Same HMAC as signed grants (`grants/signing.ts`).
 *
 * @module
 */
import type { RunAudit } from "../agent/audit/audit-record.js";
import { executionKey } from "../agent/ledger/ledger.js";
import { canonicalJson } from "../agent/shared/canonical-json.js";
import { UserError } from "../errors.js";
import { hmacText, verifyHmacText, type GrantSecret } from "../grants/signing.js";
import { APPROVAL_SCOPES, type ApprovalScope } from "../hooks/approval/request.js";
import { KabooError } from "../kaboo-error.js";
import { APPROVAL_REASON_VERSION, reasonFields } from "./answer.js";
import { questionId } from "./audit.js";

/** The signature version of an approval reason (`sig` is `a1.<base64url HMAC-SHA256>`). */
const SIG_PREFIX = "a1.";

/** What {@link signApprovalReason} signs: the answer, whose it is, and which call it answers. */
export interface SignedApprovalInput {
  /** The server's secret (the one given to `kabooToolApproval` as `secret`). */
  secret: GrantSecret;
  /** How far the approval reaches. */
  scope: ApprovalScope;
  /** The conversation. */
  threadId: string;
  /** The call answered (`toolCallId` of the AI SDK's approval request). */
  toolCallId: string;
  /** The call's arguments as the model sent them (any other arguments do not verify). */
  input: unknown;
  /** The authenticated person answering (`undefined`: an app without principals). */
  principal: string | undefined;
  /** Free text kept beside it (not signed). */
  note?: string | undefined;
  /** The arguments the person edited (signed: an altered edit does not verify). */
  editedArgs?: Record<string, unknown> | undefined;
}

/** The text an approval's HMAC covers: version, the call's execution key, the person, the scope, the edit. */
function signedText(o: Omit<SignedApprovalInput, "secret" | "note" | "editedArgs"> & { editedArgs?: unknown }): string {
  const call = executionKey({ threadId: o.threadId, toolUseId: o.toolCallId, input: o.input });
  const signed: unknown[] = [APPROVAL_REASON_VERSION, call, o.principal ?? null, o.scope];
  // An edit is signed after the scope; an approval without one signs what it always did.
  if (o.editedArgs !== undefined) signed.push(o.editedArgs);
  return `kaboo-ai-sdk-approval\n${canonicalJson(signed)}`;
}

/**
 * The `reason` of an approval signed for one person, one call and one scope. Make it on the server,
 * where the person is authenticated and was shown the call (an approve endpoint, an approver's
 * console), and send it with `addToolApprovalResponse({ id, approved: true, reason })`. A
 * `kabooToolApproval` with the same `secret` counts an approval only when its reason verifies for
 * the request's principal, the call's thread, id and arguments, the scope it names and the edit it carries.
 * @param input - See {@link SignedApprovalInput}.
 * @returns The reason text (`{"kaboo_approval":1,"scope":…,"by":…,"sig":"a1.…"}`; `by` is informative).
 * @throws UserError when the scope is not `once`, `thread` or `always`, or the secret cannot sign.
 * @example
 * ```ts
 * const reason = await signApprovalReason({ secret, scope: "thread", threadId, toolCallId, input, principal: user });
 * ```
 */
export async function signApprovalReason(input: SignedApprovalInput): Promise<string> {
  if (!APPROVAL_SCOPES.includes(input.scope)) throw new UserError(`Unknown approval scope ${String(input.scope)}.`);
  const sig = SIG_PREFIX + (await hmacText(signedText(input), input.secret));
  const by = input.principal === undefined ? {} : { by: input.principal };
  const note = input.note === undefined ? {} : { note: input.note };
  const edits = input.editedArgs === undefined ? {} : { editedArgs: input.editedArgs };
  return JSON.stringify({ kaboo_approval: APPROVAL_REASON_VERSION, scope: input.scope, ...by, sig, ...note, ...edits });
}

/**
 * An approval whose reason does not verify under the gate's secret: unsigned, signed for another
 * scope, call, arguments or person, or forged. Nothing runs and nothing is granted; the AI SDK's
 * `generateText`/`streamText` fails with it, as it does for its own invalid approval signatures.
 */
export class ApprovalSignatureError extends KabooError {
  readonly code = "APPROVAL_SIGNATURE_INVALID" as const;
  readonly tool: string;
  readonly toolCallId: string;
  /** `missing`: no signature; `invalid`: one that does not verify for this person, call and scope. */
  readonly problem: "missing" | "invalid";
  constructor(tool: string, toolCallId: string, problem: "missing" | "invalid") {
    const what = problem === "missing" ? "is not signed" : "does not verify for this person, call and scope";
    super(`The approval of the call to "${tool}" (${toolCallId}) ${what}; it was refused and nothing ran.`);
    this.tool = tool;
    this.toolCallId = toolCallId;
    this.problem = problem;
  }
}

/** The call and person an approval is checked against. */
export interface AnswerCheck {
  secret: GrantSecret;
  threadId: string;
  /** The request's principal (whose conversation it is). */
  principal: string | undefined;
  toolCall: { toolName: string; toolCallId: string; input: unknown };
  /** The thread's audit trail, if any. */
  audit: RunAudit | undefined;
}

/**
 * Whether `sig` signs `scope` (and the edit, if any) for `principal` and the call.
 * @param c - The secret, thread and call.
 * @param a - The signer, the scope, the edit sent and the `a1.` signature.
 */
export async function verifySigned(
  c: AnswerCheck,
  a: { principal: string | undefined; scope: ApprovalScope; sig: string; editedArgs?: unknown },
): Promise<boolean> {
  if (!a.sig.startsWith(SIG_PREFIX)) return false;
  const { principal, scope, editedArgs } = a;
  const text = signedText({ ...c.toolCall, threadId: c.threadId, principal, scope, editedArgs });
  return verifyHmacText(text, a.sig.slice(SIG_PREFIX.length), c.secret);
}

/**
 * Records a refused approval (a `refused` decision) in the audit trail and throws.
 * @param c - The call.
 * @param problem - Unsigned, or a signature that does not verify.
 * @param sig - The signature sent, if any.
 * @throws ApprovalSignatureError always.
 */
export async function auditRefusal(
  c: AnswerCheck,
  problem: "missing" | "invalid",
  sig: string | undefined,
): Promise<never> {
  const { toolName, toolCallId } = c.toolCall;
  await c.audit?.append({
    kind: "decision",
    tool: toolName,
    toolUseId: toolCallId,
    interruptId: questionId(toolCallId),
    principal: c.principal ?? null,
    decision: "refused",
    scope: null,
    editsDigest: null,
    signature: sig?.slice(0, 4096) ?? null,
    note: problem === "missing" ? "the approval is not signed" : "the approval's signature does not verify",
  });
  throw new ApprovalSignatureError(toolName, toolCallId, problem);
}

/**
 * Checks an approval's signed reason; a reason that does not verify is recorded in the audit trail
 * (a `refused` decision) and thrown. Nothing is written to the ledger, so a forged answer cannot take
 * the place of the person's own.
 * @param c - The secret, thread, person, call and audit trail.
 * @param reason - The approval response's reason (untrusted).
 * @returns The scope the signature covers, and the edit it covers (`undefined`: none).
 * @throws ApprovalSignatureError when the reason carries no signature or one that does not verify.
 */
export async function verifiedScope(
  c: AnswerCheck,
  reason: unknown,
): Promise<{ scope: ApprovalScope; editedArgs: unknown }> {
  const r = reasonFields(reason);
  const sig = typeof r?.sig === "string" && r.sig.startsWith(SIG_PREFIX) ? r.sig : undefined;
  const scope = APPROVAL_SCOPES.includes(r?.scope as ApprovalScope) ? (r?.scope as ApprovalScope) : undefined;
  if (sig === undefined) return auditRefusal(c, "missing", undefined);
  const editedArgs = r?.editedArgs;
  if (scope === undefined || !(await verifySigned(c, { principal: c.principal, scope, sig, editedArgs })))
    return auditRefusal(c, "invalid", sig);
  return { scope, editedArgs };
}
