/**
 * The adapter's entries in the audit trail: the same records, in the same per-thread chain, as the
 * agent's runner writes (so `verifyAuditTrail` checks them alike). A question and an answer are
 * linked by the call's question id, `ai-sdk:<toolCallId>`.
 *
 * @module
 */
import type { AuditDecisionRecord, AuditLog, AuditRecord } from "../agent/audit/audit.js";
import type { RunAudit } from "../agent/audit/audit-record.js";
import { jsonDigest } from "../agent/audit/digest.js";
import type { ApprovalScope } from "../hooks/approval/request.js";

/**
 * The trail of one thread, as the runner's steps write to it.
 * @param log - The audit log; `undefined`: nothing is written.
 * @param threadId - The conversation.
 * @returns The thread's trail, or `undefined` without a log.
 */
export function threadAudit(log: AuditLog | undefined, threadId: string): RunAudit | undefined {
  if (!log) return undefined;
  return {
    log,
    threadId,
    async append(record: AuditRecord) {
      await log.append(threadId, record);
    },
  };
}

/**
 * The question id of a call in the audit trail (its `interruptId`): the AI SDK's approval id is not
 * known yet when the question is asked.
 * @param toolCallId - The call.
 */
export function questionId(toolCallId: string): string {
  return `ai-sdk:${toolCallId}`;
}

/**
 * Records the decision an answer made about a call.
 * @param audit - The thread's trail (`undefined`: nothing is written).
 * @param principal - Whose conversation it is.
 * @param toolCall - The call.
 * @param decision - What the answer decided.
 * @param scope - The scope approved, or `null`.
 * @param note - Why (a refusal), or who approved (four eyes); `null` when nothing to add.
 * @param editedArgs - The person's edited arguments, when the answer carried some (their digest is recorded).
 */
export async function auditAnswer(
  audit: RunAudit | undefined,
  principal: string | undefined,
  toolCall: { toolName: string; toolCallId: string },
  decision: AuditDecisionRecord["decision"],
  scope: ApprovalScope | null,
  note: string | null,
  editedArgs?: unknown,
): Promise<void> {
  await audit?.append({
    kind: "decision",
    tool: toolCall.toolName,
    toolUseId: toolCall.toolCallId,
    interruptId: questionId(toolCall.toolCallId),
    principal: principal ?? null,
    decision,
    scope,
    editsDigest: editedArgs === undefined ? null : jsonDigest(editedArgs),
    signature: null,
    note,
  });
}
