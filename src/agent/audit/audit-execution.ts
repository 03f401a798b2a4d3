/**
 * The execution entries the runner writes to a run's audit trail (how the ledger answered for a call).
 *
 * @module
 */
import type { AuditExecutionRecord } from "./audit.js";
import type { RunAudit } from "./audit-record.js";
import { jsonDigest } from "./digest.js";
import type { LedgerResult } from "../ledger/ledger.js";
import { defaultLogger } from "../../logger.js";

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
