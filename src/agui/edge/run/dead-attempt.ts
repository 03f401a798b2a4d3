/**
 * The run again of a stored run that died (its hold ran out, and the Durable Object's alarm or
 * another process runs it again under the same run id) goes on in the same event log: it reads what
 * the dead attempt logged, ends what that attempt left open (a text message, a tool call, a reasoning
 * span or message started but never ended, a subagent still running), and numbers its own events on
 * after those, the first of them a marker that names the attempt (see attempts.ts). A client that
 * reattaches from any logged event of the dead attempt gets the rest of the run in order, and its
 * AG-UI client never reads a part left open or an END without its START.
 *
 * @module
 */
import { type AGUIEvent, EventType } from "@ag-ui/core";
import type { ThreadStore } from "../../../stores/thread-store.js";
import { runAgainMarker } from "./attempts.js";
import { ReadBack } from "./event-log.js";

/** The dead attempt's logged events, then the run again's marker and the END events of what it left open. */
export interface DeadAttempt {
  /** The events as logged (RUN_STARTED first), the marker, the END events; the run again goes on after them. */
  events: AGUIEvent[];
  /** How many of them the log holds (the marker and the END events go in after). */
  logged: number;
  /** Which attempt the run again is (1 + the latest the log names). */
  attempt: number;
}

/**
 * What a dead attempt of this run left in the thread's log, ready for its run again.
 *
 * @param store - The thread store (with `readEvents`).
 * @param threadId - The thread.
 * @param runId - The run, run again under its own id.
 * @param attempt - Which attempt the run again is by its lease (see `ThreadLease.attempt`). Default 0:
 *   one after the latest the log names.
 * @param started - The run again's own RUN_STARTED: where a dead attempt logged nothing (it died before its
 *   first batch reached the log, its client holding ids of events the log never had), the run again's log
 *   begins with it and the marker, so that those ids are told from the run again's. Without it, or for a
 *   first attempt (`attempt` 0), such a log is left to the run as a new one.
 * @returns The attempt, or `undefined` when the log holds nothing of the run (and no `started`), already
 *   holds its end (nothing more can be logged), or holds an event that does not read back (the run is logged
 *   no further).
 */
export async function deadAttempt(
  store: ThreadStore,
  threadId: string,
  runId: string,
  attempt = 0,
  started?: AGUIEvent,
): Promise<DeadAttempt | undefined> {
  const read = await store.readEvents?.(threadId, runId, -1);
  if (store.readEvents && (!read || read.events.length === 0) && started && attempt >= 1)
    return { events: [started, runAgainMarker(attempt, Date.now())], logged: 0, attempt };
  if (!read || read.ended || read.events.length === 0) return undefined;
  const back = new ReadBack(runId);
  back.take(read.events);
  if (back.malformed !== undefined) return undefined;
  const { events, starts } = back;
  if (events[0]?.type !== EventType.RUN_STARTED) return undefined;
  const now = Date.now();
  // An attempt that died before its marker was logged is counted by the lease; the log's is the floor.
  const next = Math.max(starts.last + 1, attempt);
  return {
    events: [...events, runAgainMarker(next, now), ...endsOfOpenParts(events, now)],
    logged: events.length,
    attempt: next,
  };
}

/**
 * The END events of every part the events started and did not end, the latest first.
 *
 * @param events - A run's events so far.
 * @param now - Their timestamp. Default `Date.now()`.
 * @returns TEXT_MESSAGE_END, TOOL_CALL_END, REASONING_MESSAGE_END, REASONING_END and SUBAGENT_ERROR events.
 */
export function endsOfOpenParts(events: readonly AGUIEvent[], now: number = Date.now()): AGUIEvent[] {
  const open = new Map<string, AGUIEvent>();
  for (const e of events) {
    const part = partOf(e);
    if (part === undefined) continue;
    if (part.end) open.delete(part.key);
    else open.set(part.key, endOf(e, now));
  }
  return [...open.values()].reverse();
}

/** The part an event starts or ends (its key: kind and id). */
function partOf(e: AGUIEvent): { key: string; end: boolean } | undefined {
  switch (e.type) {
    case EventType.TEXT_MESSAGE_START:
      return { key: `text:${e.messageId}`, end: false };
    case EventType.TEXT_MESSAGE_END:
      return { key: `text:${e.messageId}`, end: true };
    case EventType.TOOL_CALL_START:
      return { key: `tool:${e.toolCallId}`, end: false };
    case EventType.TOOL_CALL_END:
      return { key: `tool:${e.toolCallId}`, end: true };
    case EventType.REASONING_START:
      return { key: `reasoning:${e.messageId}`, end: false };
    case EventType.REASONING_END:
      return { key: `reasoning:${e.messageId}`, end: true };
    case EventType.REASONING_MESSAGE_START:
      return { key: `reasoningMessage:${e.messageId}`, end: false };
    case EventType.REASONING_MESSAGE_END:
      return { key: `reasoningMessage:${e.messageId}`, end: true };
    case EventType.SUBAGENT_STARTED:
      return { key: `subagent:${e.subagentRunId}`, end: false };
    case EventType.SUBAGENT_FINISHED:
    case EventType.SUBAGENT_ERROR:
      return { key: `subagent:${e.subagentRunId}`, end: true };
    default:
      return undefined;
  }
}

/** The END event of a part a START event opened (attributed to the same subagent). */
function endOf(start: AGUIEvent, timestamp: number): AGUIEvent {
  const sub = "subagentRunId" in start ? start.subagentRunId : undefined;
  const by = typeof sub === "string" ? { subagentRunId: sub } : {};
  switch (start.type) {
    case EventType.TEXT_MESSAGE_START:
      return { type: EventType.TEXT_MESSAGE_END, messageId: start.messageId, timestamp, ...by };
    case EventType.TOOL_CALL_START:
      return { type: EventType.TOOL_CALL_END, toolCallId: start.toolCallId, timestamp, ...by };
    case EventType.REASONING_START:
      return { type: EventType.REASONING_END, messageId: start.messageId, timestamp, ...by };
    case EventType.REASONING_MESSAGE_START:
      return { type: EventType.REASONING_MESSAGE_END, messageId: start.messageId, timestamp, ...by };
    case EventType.SUBAGENT_STARTED:
      return {
        type: EventType.SUBAGENT_ERROR,
        subagentRunId: start.subagentRunId,
        message: "The process running this agent died; the run was run again.",
        timestamp,
      };
    default:
      throw new TypeError(`${start.type} opens no part`);
  }
}
