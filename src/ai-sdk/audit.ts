/**
 * The adapter's entries in the audit trail: the same records, in the same per-thread chain, as the
 * agent's runner writes (so `verifyAuditTrail` checks them alike). A question and an answer are
 * linked by the call's question id, `ai-sdk:<toolCallId>`.
 *
 * @module
 */
import type { AuditLog, AuditRecord } from "../agent/audit/audit.js";
import type { RunAudit } from "../agent/audit/audit-record.js";

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
