/**
 * AttemptStarts after a give-up: the RUN_ERROR `RUN_NOT_RESUMED` a host logs when it gives a dead run
 * up (runNotResumedEvent) starts an attempt of its own, numbered after every attempt that held the
 * thread, so ids the dead attempt sent beyond the log resolve to the run's start, the give-up's own id
 * to its end, and ids no attempt sent are invalid.
 */
import { type AGUIEvent, EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { AttemptStarts } from "../../../../src/agui/edge/run/attempts.js";
import { RunNotResumedError, runNotResumedEvent } from "../../../../src/stores/run-again.js";

const LOGGED = 5;
const logged: AGUIEvent[] = [
  { type: EventType.RUN_STARTED, threadId: "t", runId: "r" },
  { type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant" },
  { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "Paying " },
  { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "transfer" },
  { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"to":' },
];
const error = new RunNotResumedError("it died on each of its attempts");

/** A log: attempt 0's events 0–4, then the give-up at 5 (as a host by its lease's `attempt` writes it, or with no attempt named). */
function starts(leaseAttempt: number | "unnamed") {
  const s = new AttemptStarts();
  const giveUp = runNotResumedEvent(error, leaseAttempt === "unnamed" ? 0 : leaseAttempt, 0);
  const end = (leaseAttempt === "unnamed" ? { ...giveUp, metadata: undefined } : giveUp) as AGUIEvent;
  for (const [i, e] of [...logged, end].entries()) s.see(i, e);
  return s;
}
const ended = { length: LOGGED + 1, ended: true, pending: true };

describe("AttemptStarts after a give-up", () => {
  for (const how of [0, "unnamed"] as const)
    test(`the give-up starts an attempt of its own (${how === 0 ? "named 1" : "naming none"}): unlogged ids from the start, its own id the end`, () => {
      const s = starts(how);
      expect(s.last).toBe(1);
      expect(s.attemptAt(LOGGED - 1)).toBe(0);
      expect(s.attemptAt(LOGGED)).toBe(1);
      for (const index of [LOGGED, LOGGED + 1, 1e6])
        expect(s.resolve({ index, attempt: 0 }, ended)).toEqual({ after: -1 });
      for (const index of [0, 3, LOGGED - 1]) expect(s.resolve({ index, attempt: 0 }, ended)).toEqual({ after: index });
      expect(s.resolve({ index: LOGGED, attempt: 1 }, ended)).toEqual({ after: LOGGED });
      const forged = [
        [LOGGED - 1, 1],
        [LOGGED + 1, 1],
        [LOGGED, 2],
        [LOGGED, 7],
      ] as const;
      for (const [index, attempt] of forged)
        expect(s.resolve({ index, attempt }, ended), `${index}.${attempt}`).toEqual({ invalid: true });
    });

  test("a give-up after an attempt that died before its marker was logged (lease attempt 2) is numbered after it", () => {
    const s = starts(2);
    expect(s.last).toBe(3);
    expect(s.attemptAt(LOGGED)).toBe(3);
    // Attempts 1 and 2 logged nothing: whatever of theirs a client holds is void.
    for (const attempt of [0, 1, 2]) expect(s.resolve({ index: LOGGED + 2, attempt }, ended)).toEqual({ after: -1 });
    expect(s.resolve({ index: LOGGED, attempt: 3 }, ended)).toEqual({ after: LOGGED });
    expect(s.resolve({ index: LOGGED, attempt: 4 }, ended)).toEqual({ invalid: true });
  });

  test("a give-up naming an attempt the log already passed is numbered after the log's latest", () => {
    const s = new AttemptStarts();
    const marker = { type: EventType.CUSTOM, name: "kaboo_run_again", value: { attempt: 2 } } as AGUIEvent;
    for (const [i, e] of [...logged, marker, runNotResumedEvent(error, 0, 0) as AGUIEvent].entries()) s.see(i, e);
    expect(s.last).toBe(3);
    expect(s.attemptAt(LOGGED + 1)).toBe(3);
  });

  test("a RUN_NOT_RESUMED as a run's first event, or another RUN_ERROR, starts nothing", () => {
    const s = new AttemptStarts();
    s.see(0, runNotResumedEvent(error, 0, 0) as AGUIEvent);
    s.see(1, { type: EventType.RUN_ERROR, message: "x", code: "RUN_FAILED", metadata: { kaboo_attempt: 4 } });
    expect(s.last).toBe(0);
  });
});
