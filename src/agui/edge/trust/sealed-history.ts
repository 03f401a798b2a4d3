/**
 * The stateless edge's history rule (no thread store): the seal covers a digest of the transcript,
 * and a turn must begin with the sealed transcript. The rule with a store is `../../core/history.ts`
 * (shared with the page).
 *
 * @module
 */
import type { Message as AguiMessage } from "@ag-ui/core";
import { sha256Hex } from "../../../agent/shared/sha256.js";
import { checkNew, comparable, conflict, instructions } from "../../core/history.js";

export { continueHistory, type StoredHistory } from "../../core/history.js";

type Loose = Record<string, unknown>;

/**
 * The digest of a transcript as the seal of a stateless handler covers it: a SHA-256 chain over the
 * messages as compared (instructions left out), so any prefix's digest can be found in one pass.
 *
 * @param messages - AG-UI messages.
 * @returns The digest of each prefix, `[0]` being the empty one.
 */
export function transcriptDigests(messages: readonly unknown[]): string[] {
  const out = [""];
  for (const m of messages) {
    if (instructions(m as AguiMessage)) continue;
    out.push(sha256Hex(`${out.at(-1)}\n${comparable(m)}`));
  }
  return out;
}

/**
 * Whether a turn claims history: it holds a message only the server writes (an assistant message,
 * a tool result), which without a store only a seal can vouch for.
 *
 * @param incoming - The turn's messages.
 * @returns `true` when any message is neither an instruction nor the person's.
 */
export function claimsHistory(incoming: readonly AguiMessage[]): boolean {
  return incoming.some((m) => !instructions(m) && m.role !== "user");
}

/**
 * The stateless rule: the turn's messages must begin with the transcript whose digest was sealed,
 * followed only by new messages (a resume: nothing new at all).
 *
 * @param sealed - The digest the seal covers.
 * @param pausedCallIds - Calls of the sealed pause.
 * @param incoming - The turn's messages.
 * @param resuming - Whether the turn answers the pause.
 * @throws {HistoryConflictError} When the messages do not continue the sealed transcript.
 */
export function continueSealed(
  sealed: string,
  pausedCallIds: readonly string[],
  incoming: readonly AguiMessage[],
  resuming: boolean,
): void {
  const turn = incoming.filter((m) => !instructions(m));
  const digests = transcriptDigests(turn);
  const kept = digests.indexOf(sealed);
  if (kept < 0 || (resuming && kept !== turn.length))
    throw conflict("they are not the transcript this handler sealed with the session, followed by new messages");
  checkNew(
    turn.slice(0, kept) as unknown as Loose[],
    turn.slice(kept),
    new Set(turn.slice(0, kept).map((m) => m.id)),
    pausedCallIds,
  );
}
