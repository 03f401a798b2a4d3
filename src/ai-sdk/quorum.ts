/**
 * Four eyes through the AI SDK. The AI SDK takes one approval response per call, and treats any
 * status but `denied` from a `toolApproval` it calls on an approved call as approved (it cannot be
 * asked again). So a rule with `approvals` is met in one response: each approver signs an approval
 * on the server (`signApprovalReason`, under their own principal, scope `once`), the requester's
 * page sends them together ({@link approvalsReason}), and the gate counts the distinct approvers by
 * the quorum rules `InterruptHook` uses (`ineligible`: repeated, the requester under
 * `forbidRequester`, not `eligible`).
 *
 * @module
 */
import { ineligible, type ApprovalQuorum } from "../hooks/approval/quorum.js";
import { KabooError } from "../kaboo-error.js";
import { APPROVAL_REASON_VERSION } from "./answer.js";
import { auditAnswer } from "./audit.js";
import { auditRefusal, verifySigned, type AnswerCheck } from "./signed-answer.js";

/** The most approvals one reason may carry. */
const MAX_APPROVALS = 16;

/**
 * The reason that carries several people's signed approvals of one call (each made by
 * `signApprovalReason` with scope `once`, for its approver's principal): what the requester's page sends
 * with `addToolApprovalResponse` for a rule with `approvals`. Needs no secret: it only puts them together.
 * @param reasons - The approvers' signed reasons.
 * @returns The reason text (`{"kaboo_approval":1,"scope":"once","approvals":[{"by":…,"sig":…},…]}`).
 * @example
 * ```ts
 * addToolApprovalResponse({ id, approved: true, reason: approvalsReason([fromAnn, fromBob]) });
 * ```
 */
export function approvalsReason(reasons: readonly string[]): string {
  const approvals = reasons.flatMap((reason) => {
    try {
      const r = JSON.parse(reason) as { by?: unknown; sig?: unknown };
      return typeof r.by === "string" && typeof r.sig === "string" ? [{ by: r.by, sig: r.sig }] : [];
    } catch {
      return [];
    }
  });
  return JSON.stringify({ kaboo_approval: APPROVAL_REASON_VERSION, scope: "once", approvals });
}

/**
 * A four-eyes approval whose verified approvers do not make the quorum: too few, or some of them may
 * not approve this call. Nothing runs and nothing is recorded as decided: the same question can be
 * answered again with more approvals.
 */
export class ApprovalQuorumError extends KabooError {
  readonly code = "APPROVAL_QUORUM_NOT_MET" as const;
  readonly tool: string;
  readonly toolCallId: string;
  readonly required: number;
  /** The approvers that counted. */
  readonly counted: readonly string[];
  constructor(tool: string, toolCallId: string, required: number, counted: string[], notes: string[]) {
    const why = notes.length > 0 ? ` Not counted: ${notes.join("; ")}.` : "";
    super(
      `The call to "${tool}" (${toolCallId}) needs approvals from ${required} people; ${counted.length} counted (${counted.join(", ") || "none"}).${why} It did not run.`,
    );
    this.tool = tool;
    this.toolCallId = toolCallId;
    this.required = required;
    this.counted = counted;
  }
}

/**
 * Checks a four-eyes approval: every approval in the reason must verify for its approver, the call
 * and scope `once`; the distinct approvers that may approve must reach `quorum.required`.
 * @param c - The secret, thread, requester (`principal`), call and audit log.
 * @param quorum - The rule's `approvals`.
 * @param reason - The response's reason (untrusted).
 * @returns The note for the decision (who approved).
 * @throws ApprovalSignatureError when an approval is missing or does not verify;
 *   ApprovalQuorumError when the quorum is not met (the refusal is in the audit trail).
 */
export async function verifiedQuorum(c: AnswerCheck, quorum: ApprovalQuorum, reason: unknown): Promise<string> {
  const approvals = parseApprovals(reason);
  if (approvals.length === 0) return auditRefusal(c, "missing", undefined);
  for (const a of approvals)
    if (!(await verifySigned(c, { principal: a.by, scope: "once", sig: a.sig })))
      return auditRefusal(c, "invalid", a.sig);
  const state = {
    required: quorum.required,
    approvedBy: [] as { principal: string; at: number }[],
    requestedBy: c.principal ?? null,
  };
  const notes: string[] = [];
  for (const { by } of approvals) {
    const why = ineligible(quorum, state, by);
    if (why === undefined) state.approvedBy.push({ principal: by, at: 0 });
    else notes.push(why);
  }
  const counted = state.approvedBy.map((a) => a.principal);
  if (counted.length >= quorum.required)
    return `Approved by ${counted.join(", ")} (${counted.length} of ${quorum.required}).`;
  const { toolName, toolCallId } = c.toolCall;
  const error = new ApprovalQuorumError(toolName, toolCallId, quorum.required, counted, notes);
  await auditAnswer(c.audit, c.principal, c.toolCall, "refused", null, `not counted: ${error.message}`);
  throw error;
}

function parseApprovals(reason: unknown): { by: string; sig: string }[] {
  if (typeof reason !== "string" || !reason.startsWith("{")) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(reason);
  } catch {
    return [];
  }
  const r = parsed as { kaboo_approval?: unknown; approvals?: unknown } | null;
  if (r?.kaboo_approval !== APPROVAL_REASON_VERSION || !Array.isArray(r.approvals)) return [];
  return r.approvals
    .slice(0, MAX_APPROVALS)
    .filter((a): a is { by: string; sig: string } => typeof a?.by === "string" && typeof a.sig === "string");
}
