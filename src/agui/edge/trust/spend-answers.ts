/**
 * Answers spent in a shared ledger, for a handler without a thread store: a sealed pause proves
 * where it came from, not that it is still open, so the same pause can be sent again. The first
 * answer to each interrupt is written to the ledger (claimed, then settled with a digest of the
 * answer); a later resume of that interrupt with the same answer goes on (the ledger then answers
 * each call with its recorded result), and one with another answer is refused.
 *
 * @module
 */
import type { ResumeEntry } from "@ag-ui/core";
import { canonicalJson } from "../../../agent/shared/canonical-json.js";
import { answerKey, type ExecutionLedger, type LedgerResult } from "../../../agent/ledger/ledger.js";
import { sha256Hex } from "../../../agent/shared/sha256.js";
import { pendingInterruptIds } from "../../../agent/interrupts/session.js";
import { InvalidInterruptResponseError, type KabooError, UnknownInterruptIdError } from "../../../errors.js";
import { ResumeInProgressError } from "../errors.js";

// An answer is recorded at once after its claim: a lease only covers a process that dies between the two.
const ANSWER_LEASE_MS = 60_000;

/** The digest of one answer, as recorded. */
const recordOf = (digest: string): LedgerResult => ({ status: "success", content: [{ type: "text", text: digest }] });

/**
 * Records the answers of a resume, or says why the resume must be refused.
 *
 * @param ledger - The handler's shared execution ledger.
 * @param threadId - The run's thread.
 * @param session - The opened (verified) `kaboo_session`: only its open interrupts are recorded.
 * @param resume - The run's answers.
 * @returns `undefined` to go on; else the refusal (`UNKNOWN_INTERRUPT_ID`: answered before,
 *   differently; `RESUME_IN_PROGRESS`: another request is recording an answer to it now).
 */
export async function spendAnswers(
  ledger: ExecutionLedger,
  threadId: string,
  session: unknown,
  resume: readonly ResumeEntry[],
): Promise<KabooError | undefined> {
  const open = new Set(pendingInterruptIds(session));
  // Checked before anything is recorded: a refused resume must not leave one of its answers as final.
  const contradiction = contradictoryEntry(resume);
  if (contradiction) return contradiction;
  for (const entry of resume) {
    if (!open.has(entry.interruptId)) continue; // the agent refuses it as it stands
    const refusal = await recordOne(ledger, threadId, entry);
    if (refusal) return refusal;
  }
  return undefined;
}

const answerDigest = (entry: ResumeEntry) =>
  sha256Hex(canonicalJson({ status: entry.status, payload: entry.payload ?? null }));

/** An interrupt the resume answers twice, differently (the same answer twice is one answer). */
function contradictoryEntry(resume: readonly ResumeEntry[]): KabooError | undefined {
  const seen = new Map<string, string>();
  for (const entry of resume) {
    const digest = answerDigest(entry);
    const before = seen.get(entry.interruptId);
    if (before !== undefined && before !== digest)
      return new InvalidInterruptResponseError(entry.interruptId, "the resume answers it twice, differently");
    seen.set(entry.interruptId, digest);
  }
  return undefined;
}

async function recordOne(
  ledger: ExecutionLedger,
  threadId: string,
  entry: ResumeEntry,
): Promise<KabooError | undefined> {
  const key = answerKey(threadId, entry.interruptId);
  const digest = answerDigest(entry);
  let claim = await ledger.claim(key, { leaseMs: ANSWER_LEASE_MS });
  if (claim.status === "unknown") claim = await ledger.claim(key, { leaseMs: ANSWER_LEASE_MS, takeOverUnknown: true });
  switch (claim.status) {
    case "claimed":
      await ledger.settle(key, claim.token, recordOf(digest));
      return undefined;
    case "done": {
      const recorded = claim.result.content[0];
      if (recorded?.type === "text" && recorded.text === digest) return undefined;
      return new UnknownInterruptIdError(entry.interruptId, []);
    }
    case "running":
    case "unknown":
      return new ResumeInProgressError("Another request is answering this interrupt now; this one ran nothing.");
    default: {
      const never: never = claim;
      return never;
    }
  }
}
