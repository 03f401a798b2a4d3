/**
 * The replay guard: whether a resume's answers are already *spent*, that is, answered before and
 * acted on, so that running them again would run approved calls a second time. One concept with one
 * name (`spent…`) wherever a host asks it, and the one reader of a run's answers ({@link answersOf}).
 *
 * Each host asks it of the record it holds:
 * - without a thread store, of the snapshot the client sent back ({@link spentBySnapshot}), and of the
 *   handler's shared ledger (`spendAnswers` at the edge records each answer once);
 * - with a thread store, of the thread's record of answered interrupts ({@link spentInRecord}), which
 *   the run core (`core/decide.ts`) replays;
 * - in the page, which records no outcomes, the run core refuses a resume of questions the stored
 *   snapshot no longer holds open as stale.
 *
 * @module
 */
import type { Message as AguiMessage, ResumeEntry } from "@ag-ui/core";
import { sessionPausedCallIds } from "../../agent/interrupts/session.js";
import type { RecordedOutcome, ThreadRecord } from "../../stores/thread-store.js";

/**
 * A run's answers to the questions it was shown (`input.resume`), empty when it answers none.
 * @param input - The run's input.
 * @returns Its resume entries.
 */
export function answersOf(input: { resume?: ResumeEntry[] | undefined }): readonly ResumeEntry[] {
  return input.resume ?? [];
}

/**
 * Whether a run answers questions (a resume) rather than starting a turn.
 * @param input - The run's input.
 * @returns `true` when it carries answers.
 */
export function isResume(input: { resume?: ResumeEntry[] | undefined }): boolean {
  return answersOf(input).length > 0;
}

/**
 * Spent by the conversation (stateless): every call the snapshot holds as paused has a result *and* an
 * assistant message follows it, so the snapshot is older than the conversation (a second tab, a
 * replay) and resuming it would run those calls again. A host's synthetic result for a call that is
 * still pending has nothing after it, so it does not count. (A resume of calls that ran but whose
 * conversation did not move on is not spent here: the ledger answers each with its recorded result.)
 * @param session - The paused session the client sent back.
 * @param messages - The conversation the client sent.
 * @returns `true` when the conversation has moved past the snapshot.
 */
export function spentBySnapshot(session: unknown, messages: readonly AguiMessage[]): boolean {
  const ids = sessionPausedCallIds(session);
  if (ids.length === 0) return false;
  return ids.every((id) => {
    const at = messages.findIndex((m) => m.role === "tool" && m.toolCallId === id);
    return at >= 0 && messages.slice(at + 1).some((m) => m.role === "assistant");
  });
}

/**
 * Spent in the thread's record (a thread store): the recorded outcome of the run that already
 * answered one of these interrupts, which a replay is answered with.
 * @param record - The thread's record.
 * @param answers - The run's answers.
 * @returns The recorded outcome, or `undefined` when none of them was answered.
 */
export function spentInRecord(
  record: Pick<ThreadRecord, "answered">,
  answers: readonly { interruptId: string }[],
): RecordedOutcome | undefined {
  // Own keys only: an id such as "constructor" must not read Object.prototype as a recorded outcome.
  return answers
    .map((r) => (Object.hasOwn(record.answered, r.interruptId) ? record.answered[r.interruptId] : undefined))
    .find((a) => a !== undefined);
}
