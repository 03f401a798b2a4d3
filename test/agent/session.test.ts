import { describe, expect, test } from "vitest";
import { InterruptState } from "../../src/agent/interrupts/interrupt.js";
import {
  delegateSnapshot,
  pendingInterruptIds,
  readDelegateSnapshot,
  SessionExchange,
  sessionPausedCallIds,
  sessionSnapshot,
  staleCallId,
} from "../../src/agent/interrupts/session.js";
import { createSessionExchange, getSessionExchange } from "../../src/agent/interrupts/session-exchange.js";
import { SESSION_EXCHANGE_KEY } from "../../src/agent/run-context.js";
import { capturingLogger } from "../fixtures/logger.js";

const quiet = () => {
  const logger = capturingLogger();
  return { warnings: logger.warns, logger };
};

describe("SessionExchange", () => {
  test("created per run, in that run's invocationState only", () => {
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = {};
    const ex = createSessionExchange(a, { inbound: { interrupt_state: { version: 1 } }, resuming: true });
    expect(a[SESSION_EXCHANGE_KEY]).toBe(ex);
    expect(getSessionExchange(a)).toBe(ex);
    expect(getSessionExchange(b)).toBeUndefined();
    expect(ex.resuming).toBe(true);
    expect(ex.restored).toBe(false);
    expect(ex.publishesApprovals).toBe(false);
  });

  test("something else under the key is not an exchange", () => {
    expect(getSessionExchange({ [SESSION_EXCHANGE_KEY]: { publishesApprovals: true } })).toBeUndefined();
  });

  test.each([["a string"], [42], [[1, 2]], [{ delegates: "nope" }], [{ delegates: { d: () => 1 } }]])(
    "a malformed inbound snapshot (%j) is reported and the run starts clean",
    (inbound) => {
      const { warnings, logger } = quiet();
      const ex = new SessionExchange(inbound, true, logger);
      expect(ex.inbound).toEqual({});
      expect(ex.delegates).toEqual({});
      expect(warnings).toHaveLength(1);
    },
  );

  test("absent input is no snapshot, without a warning; delegates are copied, not shared", () => {
    const { warnings, logger } = quiet();
    expect(new SessionExchange(undefined, false, logger).inbound).toEqual({});
    expect(new SessionExchange(null, false, logger).inbound).toEqual({});
    const inbound = { delegates: { clerk: { tool_use_id: "t" } } };
    const ex = new SessionExchange(inbound, true, logger);
    ex.delegates.other = 1;
    expect(inbound.delegates).toEqual({ clerk: { tool_use_id: "t" } });
    expect(warnings).toEqual([]);
  });
});

const paused = (ids: string[]) => ({
  toolUseMessage: {
    role: "assistant",
    content: ids.map((id) => ({ type: "toolUse", toolUseId: id, name: "t", input: {} })),
  },
  toolResults: [],
});

describe("the paused session's readers", () => {
  test("pending ids: the unanswered interrupts; a kept pause with every answer names them all", () => {
    const open = {
      interrupt_state: { activated: true, interrupts: { a: { name: "x" }, b: { name: "y", response: 1 } } },
    };
    expect(pendingInterruptIds(open)).toEqual(["a"]);
    const kept = { interrupt_state: { activated: true, interrupts: { a: { response: 1 }, b: { response: 2 } } } };
    expect(pendingInterruptIds(kept)).toEqual(["a", "b"]);
    const done = { interrupt_state: { activated: false, interrupts: { a: { response: 1 } } } };
    expect(pendingInterruptIds(done)).toEqual([]);
  });

  test.each([[null], [undefined], ["x"], [{}], [{ interrupt_state: [] }], [{ interrupt_state: { interrupts: [1] } }]])(
    "a damaged or absent session (%j) names no interrupts and no calls",
    (session) => {
      expect(pendingInterruptIds(session)).toEqual([]);
      expect(sessionPausedCallIds(session)).toEqual([]);
    },
  );

  test("paused call ids come from the interrupt state's paused batch, in order", () => {
    expect(sessionPausedCallIds({ interrupt_state: { context: paused(["c1", "c2"]) } })).toEqual(["c1", "c2"]);
  });

  test("stale: a paused call the transcript already holds", () => {
    const state = new InterruptState();
    state.activated = true;
    state.context = paused(["c1"]);
    expect(staleCallId(state, [{ role: "user", content: [{ type: "text", text: "hi" }] }])).toBeUndefined();
    const ran = {
      role: "user" as const,
      content: [{ type: "toolResult" as const, toolUseId: "c1", status: "success" as const, content: [] }],
    };
    expect(staleCallId(state, [ran])).toBe("c1");
    expect(staleCallId(new InterruptState(), [ran])).toBeUndefined();
  });

  test("the outgoing snapshot carries delegates only when there are some, as a copy", () => {
    const json = new InterruptState().toJSON();
    expect(sessionSnapshot(json, {})).toEqual({ interrupt_state: json });
    const delegates = { clerk: { tool_use_id: "t" } };
    const out = sessionSnapshot(json, delegates);
    expect(out.delegates).toEqual(delegates);
    expect(out.delegates).not.toBe(delegates);
  });

  test("a delegate's entry reads back for its own call only", () => {
    const state = new InterruptState();
    state.activated = true;
    const entry = delegateSnapshot("call-1", { interruptState: state, messages: [{ role: "user", content: [] }] });
    expect(readDelegateSnapshot(entry, "call-1")).toMatchObject({ messages: [{ role: "user", content: [] }] });
    expect(readDelegateSnapshot(entry, "call-2")).toBeUndefined();
    expect(readDelegateSnapshot({ tool_use_id: "call-1" }, "call-1")).toBeUndefined();
  });
});
