/**
 * Writing to a run's audit trail: which log a run records in, and the execution entries the runner
 * writes (the gates' request, decision and grant-use entries are written by the approval hooks
 * through the same {@link runAudit}).
 *
 * @module
 */
import type { Agent } from "./agent.js";
import type { AuditExecutionRecord, AuditLog, AuditRecord } from "./audit.js";
import { jsonDigest } from "./digest.js";
import type { InvocationState } from "./events.js";
import type { LedgerResult } from "./ledger.js";
import { runContext } from "./run-context.js";
import { defaultLogger } from "../logger.js";

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

/** What the runner knows of a call when it records how the ledger answered. */
export interface ExecutionFacts {
  tool: string;
  toolUseId: string;
  idempotencyKey: string;
  claim: AuditExecutionRecord["claim"];
  result?: LedgerResult | undefined;
  answer?: AuditExecutionRecord["answer"] | undefined;
}

/**
 * Records an execution entry. Never rejects: the call already ran (or was answered), so a failed
 * write is reported as an error and the run goes on — the ledger, not the trail, decides what runs.
 *
 * @param audit - The run's trail (nothing is written without one).
 * @param facts - The call, its claim and its result.
 * @returns When the entry is written (or the failure reported).
 */
export async function recordExecution(audit: RunAudit | undefined, facts: ExecutionFacts): Promise<void> {
  if (!audit) return;
  try {
    const { result } = facts;
    await audit.append({
      kind: "execution",
      tool: facts.tool,
      toolUseId: facts.toolUseId,
      idempotencyKey: facts.idempotencyKey,
      claim: facts.claim,
      status: result?.status ?? null,
      resultDigest: result === undefined ? null : jsonDigest(result),
      answer: facts.answer ?? null,
    });
  } catch (error) {
    defaultLogger.error("kaboo: an execution could not be written to the audit trail", {
      tool: facts.tool,
      toolUseId: facts.toolUseId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
