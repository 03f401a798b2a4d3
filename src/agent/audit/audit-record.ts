/**
 * Which audit trail a run records in ({@link runAudit}): the approval hooks write the gates' request,
 * decision and grant-use entries through it, the runner its execution entries (`audit-execution.ts`,
 * which loads with the first run).
 *
 * @module
 */
import type { Agent } from "../agent.js";
import type { AuditLog, AuditRecord } from "./audit.js";
import type { InvocationState } from "../events.js";
import { runContext } from "../run-context.js";

/** A run's audit trail, bound to its thread. */
export interface RunAudit {
  log: AuditLog;
  threadId: string;
  /** Appends one entry; rejects when the log could not write it. */
  append(record: AuditRecord): Promise<void>;
}

/**
 * The audit trail a run records in: the one in its `invocationState` (the host's), else the agent's.
 *
 * @param agent - The running agent.
 * @param invocationState - The run's state.
 * @returns The trail bound to the run's thread (`""` for an agent without one), or `undefined`.
 */
export function runAudit(agent: Agent, invocationState: InvocationState): RunAudit | undefined {
  const log = runContext.auditLog.get(invocationState) ?? agent.audit;
  if (!log) return undefined;
  const threadId = runContext.threadId.find(invocationState) ?? "";
  return { log, threadId, append: async (record) => void (await log.append(threadId, record)) };
}
