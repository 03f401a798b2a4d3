/**
 * What a stored run reads from its thread's record and writes back: the input the agent runs on
 * (the stored session and transcript, not the client's), the record saved when it finishes, and
 * the events of a recorded outcome replayed.
 *
 * @module
 */
import type { AGUIEvent, Message as AguiMessage, RunAgentInput, RunFinishedOutcome } from "@ag-ui/core";
import type { JsonObject, JsonValue } from "../../../agent/messages/messages.js";
import { SESSION_STATE_KEY } from "../../../agent/interrupts/session.js";
import { isObject } from "../../../agent/shared/guards.js";
import {
  boundAnswered,
  type RecordedOutcome,
  type ThreadData,
  type ThreadRecord,
} from "../../../stores/thread-store.js";
import { messagesSnapshot, runFinished, stateSnapshot } from "../../run-events.js";
import type { Answerer } from "../trust/answerer.js";
import { answersOf } from "../../core/spent-answers.js";

/** What the run's snapshots said so far (what the store saves when it ends). */
export interface RunOutput {
  state?: JsonObject;
  messages?: JsonValue[];
}

/**
 * The input the agent runs on: the stored session, and on a resume the stored transcript (what the
 * client shows cannot change what was asked). An approver who does not own the thread answers its
 * four-eyes question and nothing else: the run goes on with the thread's stored state, and without
 * that person's tools, context and grants.
 *
 * @param input - The validated request.
 * @param held - The record as the run holds it.
 * @param taken - Who answers, and the transcript of a new turn.
 * @returns The run's input, and the requester to name when an approver runs it.
 */
export function inputOnThread(
  input: RunAgentInput,
  held: ThreadRecord,
  taken: { answerer: Answerer; messages?: RunAgentInput["messages"] },
): { runInput: RunAgentInput; requester?: { requester: string } } {
  const approver = taken.answerer === "approver";
  // The owner's state is the handler's own parse of the body, used in place (a copy of a wide state
  // is a cost a client could buy); the stored state is copied, as the record is the store's.
  const own = isObject(input.state) ? input.state : {};
  const state: Record<string, unknown> = approver ? { ...held.state } : own;
  if (held.session) state[SESSION_STATE_KEY] = held.session;
  else delete state[SESSION_STATE_KEY];
  const resume = answersOf(input);
  const messages = resume.length ? (held.messages as RunAgentInput["messages"]) : (taken.messages ?? input.messages);
  const asked = approver ? { ...input, tools: [], context: [], forwardedProps: {} } : input;
  const runInput = { ...asked, state, messages };
  return approver && held.owner !== null ? { runInput, requester: { requester: held.owner } } : { runInput };
}

/**
 * The thread's record after the run finished: its session, state and transcript, and the answers it spent.
 *
 * @param held - The record as the run holds it.
 * @param out - What the run's snapshots said.
 * @param input - The request (its resume's answers are recorded).
 * @param answer - The outcome and who answered.
 * @param now - Clock, epoch ms.
 * @returns The data to write (no lease).
 */
export function finishedRecord(
  held: ThreadRecord,
  out: RunOutput,
  input: RunAgentInput,
  answer: { outcome: JsonObject; by?: string },
  now: () => number,
): ThreadData {
  const answered = { ...held.answered };
  for (const r of answersOf(input)) answered[r.interruptId] = { runId: input.runId, ...answer, at: now() };
  return {
    ...held,
    ...sessionAndState(out),
    messages: out.messages ?? held.messages,
    answered: boundAnswered(answered),
    lease: null,
    updatedAt: now(),
  };
}

/**
 * The session and state of the run's last STATE_SNAPSHOT, apart.
 *
 * @param out - What the run's snapshots said.
 * @returns The session and state to save (nothing when the run sent no snapshot).
 */
export function sessionAndState(out: RunOutput): Partial<Pick<ThreadData, "session" | "state">> {
  if (!out.state) return {};
  const { [SESSION_STATE_KEY]: session, ...state } = out.state;
  return { session: isObject(session) ? (session as JsonObject) : null, state };
}

/**
 * The recorded outcome of the run that answered these interrupts, after RUN_STARTED; nothing runs.
 *
 * @param input - The request.
 * @param record - The thread's record.
 * @param answered - The recorded outcome.
 * @returns STATE_SNAPSHOT, MESSAGES_SNAPSHOT and RUN_FINISHED as recorded.
 */
export function* replayed(input: RunAgentInput, record: ThreadRecord, answered: RecordedOutcome): Generator<AGUIEvent> {
  const snapshot: Record<string, unknown> = { ...record.state };
  if (record.session) snapshot[SESSION_STATE_KEY] = record.session;
  yield stateSnapshot(snapshot);
  // The record keeps the messages of the run's own MESSAGES_SNAPSHOT.
  yield messagesSnapshot(record.messages as AguiMessage[]);
  yield runFinished(input, answered.outcome as RunFinishedOutcome);
}
