/**
 * The question the runner asks about a call whose outcome is unknown (its claim ran out without a
 * result), and how its answer is read. Apart from the ledger's run-time code (`call-ledger.ts`), which
 * loads with the agent's first run.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { looseObject } from "../shared/lean-schemas.js";
import type { JsonValue } from "../messages/messages.js";
import type { LedgerResult } from "./ledger.js";

/** Name (and AG-UI `reason`) of the interrupt that asks about a call whose outcome is unknown. */
export const OUTCOME_UNKNOWN = "outcome_unknown";

/**
 * The interrupt `reason` of an {@link OUTCOME_UNKNOWN} question: a call was claimed, and its claim
 * ran out without a result (the page or process died mid-call). It may or may not have run.
 */
export interface OutcomeUnknownRequest {
  kind: "outcome_unknown";
  tool: string;
  toolUseId: string;
  input: JsonValue;
  /** When the lost claim was taken (epoch ms). */
  claimedAt: number;
  message: string;
  /** The answers the runner reads, as `{ action }`. */
  actions: OutcomeAction[];
}

/**
 * The answer to an {@link OUTCOME_UNKNOWN} question: `{ action: "run_again" | "treat_as_done" | "cancel" }`.
 * The approval dialog's payload is read too: `{ approved: true }` runs it again, `{ approved: false }`
 * or `status: "cancelled"` cancels. Anything else cancels: an unreadable answer never re-runs a call.
 */
export type OutcomeAction = "run_again" | "treat_as_done" | "cancel";

const answerSchema = looseObject({
  action: z.optional(z.literal(["run_again", "treat_as_done", "cancel"])),
  approved: z.optional(z.boolean()),
  status: z.optional(z.string()),
});

/** Reads an answer to an outcome-unknown question; see {@link OutcomeAction}. */
export function readOutcomeAnswer(value: unknown): OutcomeAction {
  const parsed = answerSchema.safeParse(value);
  if (!parsed.success || parsed.data.status === "cancelled") return "cancel";
  if (parsed.data.action) return parsed.data.action;
  return parsed.data.approved === true ? "run_again" : "cancel";
}

/** Key of the `structuredContent` that marks a claim abandoned: its callback was let go still running. */
const ABANDONED_KEY = "kaboo_abandoned";

/** An abandoned claim, as its marker names it: the claim's token, and when it was let go (epoch ms). */
export interface AbandonedClaim {
  token: string;
  at: number;
}

const abandonedSchema = looseObject({
  [ABANDONED_KEY]: looseObject({ token: z.string(), at: z.number() }),
});

/**
 * What a call's claim is settled with when its callback is abandoned ({@link AbandonedClaim}): read by the
 * next claim as an unknown outcome (a person is asked, under the question id the abandoning run used). A
 * result that still comes is settled with the same token over it (it replaces it, as a retry's does).
 * @param claim - The claim's token and when it was let go.
 * @param text - What the marker says, for a reader of the raw ledger.
 * @returns The ledger result to settle.
 */
export function abandonedResult(claim: AbandonedClaim, text: string): LedgerResult {
  return {
    status: "error",
    content: [{ type: "text", text }],
    structuredContent: { [ABANDONED_KEY]: { token: claim.token, at: claim.at } },
  };
}

/**
 * The abandoned claim a recorded result marks, if it is such a marker.
 * @param result - A result the ledger answered `done` with.
 * @returns The claim, or `undefined` for a real result.
 */
export function abandonedClaim(result: LedgerResult): AbandonedClaim | undefined {
  const parsed = abandonedSchema.safeParse(result.structuredContent);
  return parsed.success ? parsed.data[ABANDONED_KEY] : undefined;
}
