/**
 * Who answers a thread's interrupts, and what a person who does not own the thread sees. The
 * owner answers anything and sees the whole run. Another person may answer the thread's open
 * four-eyes questions only when the agent's gate would count their approval (eligible, not yet
 * approved, not the requester under `forbidRequester`), or send again an answer of their own the
 * thread recorded; everyone else is refused before anything is read, run, recorded or saved. An
 * approver sees the request they approve (its RUN_FINISHED outcome: tool, arguments, subject, who
 * approved so far), never the owner's transcript, state or audit entries.
 *
 * @module
 */
import { EventType, type AGUIEvent, type RunErrorEvent, type RunFinishedEvent } from "@ag-ui/core";
import { isObject } from "../../../agent/shared/guards.js";
import type { JsonObject } from "../../../agent/messages/messages.js";
import { quorumQuestions } from "../../../agent/interrupts/session.js";
import type { ThreadRecord } from "../../../stores/thread-store.js";
import { runFinished } from "../../run-events.js";
import { ThreadForbiddenError } from "../errors.js";

/** Whether a non-owner's answer to a stored question would count: `undefined` when it would, else why not. */
export type MayAnswer = (principal: string, question: JsonObject) => Promise<string | undefined>;

/** Who answers: the thread's owner (or its first run), or another person approving. */
export type Answerer = "owner" | "approver";

/**
 * Decides who answers a request on a thread, before anything of it is used.
 * @param record - The thread as loaded.
 * @param ids - The interrupt ids the request answers (`[]`: a new turn).
 * @param principal - Who sends it.
 * @param mayAnswer - Asks the agent's gates; without it no other person may answer.
 * @returns Who answers, or the refusal (THREAD_FORBIDDEN).
 */
export async function whoAnswers(
  record: ThreadRecord,
  ids: readonly string[],
  principal: string | undefined,
  mayAnswer: MayAnswer | undefined,
): Promise<Answerer | { refuse: ThreadForbiddenError }> {
  if (record.owner === null || record.owner === principal) return "owner";
  const forbidden = (why = "This thread belongs to someone else.") => ({ refuse: new ThreadForbiddenError(why) });
  if (principal === undefined || ids.length === 0) return forbidden();
  // Their own answer sent again (a lost connection): the recorded outcome, shown as an approver sees it.
  if (ids.every((id) => Object.hasOwn(record.answered, id) && record.answered[id]?.by === principal)) return "approver";
  const questions = quorumQuestions(record.session, ids);
  if (!questions || !mayAnswer) return forbidden();
  for (const question of questions) {
    const why = await mayAnswer(principal, question);
    if (why !== undefined) return forbidden(`This thread belongs to someone else, and ${why}.`);
  }
  return "approver";
}

/**
 * The events an approver's response shows: RUN_STARTED, RUN_ERROR, and RUN_FINISHED with only its
 * four-eyes questions (each request's metadata says what is approved and by whom so far).
 * @param events - The run's events (the thread's log and the owner's reattach keep them all).
 * @param approver - Whether the request's sender is an approver (decided before the first event).
 * @param shownFor - Filled with each event this view rewrote, mapped to the logged event it stands for,
 *   so the rewritten frame keeps that event's SSE `id:`.
 */
export async function* approverView(
  events: AsyncIterable<AGUIEvent>,
  approver: () => boolean,
  shownFor?: WeakMap<AGUIEvent, AGUIEvent>,
): AsyncGenerator<AGUIEvent> {
  const shown = (event: AGUIEvent, view: AGUIEvent) => {
    if (view !== event) shownFor?.set(view, event);
    return view;
  };
  for await (const event of events) {
    if (!approver() || event.type === EventType.RUN_STARTED) yield event;
    else if (event.type === EventType.RUN_ERROR) yield shown(event, approverError(event));
    else if (event.type === EventType.RUN_FINISHED) yield shown(event, approverFinished(event));
  }
}

/** Errors about the approver's own request: their text says what was wrong with it, so it is shown. */
const ABOUT_THE_REQUEST = new Set([
  "INTERRUPT_EXPIRED",
  "INVALID_PAYLOAD",
  "PARTIAL_RESUME",
  "PENDING_INTERRUPTS",
  "UNKNOWN_INTERRUPT_ID",
  "UNAUTHENTICATED",
  "CALL_IN_PROGRESS",
  "THREAD_FORBIDDEN",
  "RESUME_IN_PROGRESS",
  "RUN_IN_PROGRESS",
  "RUN_ID_REUSED",
  "STORE_BUSY",
]);

/**
 * Any other error came from the owner's run after the answer was taken (a model's or a tool's failure):
 * its text may quote the owner's conversation, so the approver gets the code and a sentence.
 */
function approverError(event: RunErrorEvent): RunErrorEvent {
  if (event.code !== undefined && ABOUT_THE_REQUEST.has(event.code)) return event;
  const code = event.code ?? "RUN_FAILED";
  return {
    ...event,
    message: `Your answer was recorded; the run then stopped with an error (${code}). The thread's owner sees what happened.`,
  };
}

function approverFinished(event: RunFinishedEvent): RunFinishedEvent {
  const at = event.timestamp ?? Date.now();
  const outcome = event.outcome ?? { type: "success" as const };
  if (outcome.type !== "interrupt") return runFinished(event, outcome, at);
  const interrupts = outcome.interrupts.filter((i) => {
    const kaboo = isObject(i.metadata) ? i.metadata.kaboo : undefined;
    return isObject(kaboo) && isObject(kaboo.approvals);
  });
  return runFinished(event, { ...outcome, interrupts }, at);
}
