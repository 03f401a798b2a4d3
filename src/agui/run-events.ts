/**
 * The run-level AG-UI events (RUN_STARTED, the snapshots, STATE_DELTA, CUSTOM, RUN_FINISHED,
 * RUN_ERROR), built with the protocol's own types so a wrong field fails to compile.
 *
 * @module
 */
import {
  EventType,
  type CustomEvent,
  type Message as AguiMessage,
  type MessagesSnapshotEvent,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunFinishedOutcome,
  type RunStartedEvent,
  type StateDeltaEvent,
  type StateSnapshotEvent,
} from "@ag-ui/core";
import { KabooError, describe } from "../errors.js";

/** Which run an event belongs to. */
export interface RunIds {
  threadId: string;
  runId: string;
}

/** `RUN_STARTED`. */
export function runStarted({ threadId, runId }: RunIds, timestamp: number = Date.now()): RunStartedEvent {
  return { type: EventType.RUN_STARTED, timestamp, threadId, runId };
}

/** `RUN_FINISHED` with its outcome (success, interrupt or cancelled). */
export function runFinished(
  { threadId, runId }: RunIds,
  outcome: RunFinishedOutcome,
  timestamp = Date.now(),
): RunFinishedEvent {
  return { type: EventType.RUN_FINISHED, timestamp, threadId, runId, outcome };
}

/**
 * `RUN_ERROR` for a failure: the package's errors keep their code (`UNKNOWN_INTERRUPT_ID`,
 * `PARTIAL_RESUME`, …), anything else is `RUN_FAILED`.
 */
export function runError(error: unknown, timestamp: number = Date.now()): RunErrorEvent {
  return {
    type: EventType.RUN_ERROR,
    timestamp,
    message: describe(error),
    code: error instanceof KabooError ? error.code : "RUN_FAILED",
  };
}

/** `STATE_SNAPSHOT`. */
export function stateSnapshot(snapshot: Record<string, unknown>, timestamp: number = Date.now()): StateSnapshotEvent {
  return { type: EventType.STATE_SNAPSHOT, timestamp, snapshot };
}

/** `STATE_DELTA` (JSON Patch operations). */
export function stateDelta(delta: StateDeltaEvent["delta"], timestamp: number = Date.now()): StateDeltaEvent {
  return { type: EventType.STATE_DELTA, timestamp, delta };
}

/** `MESSAGES_SNAPSHOT`. */
export function messagesSnapshot(messages: AguiMessage[], timestamp: number = Date.now()): MessagesSnapshotEvent {
  return { type: EventType.MESSAGES_SNAPSHOT, timestamp, messages };
}

/** `CUSTOM` with a name and a JSON value. */
export function customEvent(name: string, value: unknown, timestamp: number = Date.now()): CustomEvent {
  return { type: EventType.CUSTOM, timestamp, name, value };
}

/**
 * Whether an event ends its run's stream: RUN_FINISHED or RUN_ERROR (the one definition the stream,
 * the event log, the run hub and the page's reattach use).
 * @param event - Any AG-UI event.
 * @returns `true` for the run's last event.
 */
export function isTerminal(event: { type: EventType | string }): boolean {
  return event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR;
}
