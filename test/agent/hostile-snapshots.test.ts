// Snapshots come back from clients: over-deep or malformed ones are refused with the typed error
// (or logged, where the documented answer is a clean start), never a RangeError or TypeError.
import { describe, expect, test } from "vitest";
import { Agent, InterruptState, InvalidStateError, ScriptedModel } from "../../src/index.js";
import { withinDepth } from "../../src/agent/shared/json-depth.js";
import { createSessionExchange } from "../../src/agent/interrupts/session-exchange.js";
import { restoreSessionState } from "../../src/hooks/session-state-hook.js";
import { parseThreadSnapshot } from "../../src/indexeddb/session-store.js";
import { capturingLogger } from "../fixtures/logger.js";

function nested(depth: number): unknown {
  let v: unknown = "leaf";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
  return v;
}
const state = (context: unknown, reason: unknown = "r") => ({
  version: 1,
  activated: true,
  interrupts: { "tool:t1:q": { id: "tool:t1:q", name: "q", reason } },
  context,
});

describe("hostile snapshots", () => {
  test.each([10, 10_000, 200_000])(
    "InterruptState.fromJSON refuses %i-deep nesting with InvalidStateError (or reads it when small)",
    (depth) => {
      for (const data of [state({ deep: nested(depth) }), state({}, nested(depth))]) {
        if (depth <= 10) expect(InterruptState.fromJSON(data).activated).toBe(true);
        else expect(() => InterruptState.fromJSON(data)).toThrow(InvalidStateError);
      }
    },
  );

  test("restoreSessionState on content [null], over-deep state, or a non-object: logs, starts clean, never throws", () => {
    const inputs = [
      state({ toolUseMessage: { role: "assistant", content: [null] }, toolResults: [] }),
      state({
        toolUseMessage: { role: "assistant", content: [{ type: "toolUse", toolUseId: null }] },
        toolResults: [],
      }),
      state({ deep: nested(10_000) }),
      { interrupt_state: nested(10_000) },
    ];
    for (const interrupt_state of inputs) {
      const logger = capturingLogger();
      const agent = new Agent({
        model: new ScriptedModel({ script: [] }),
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      });
      const invocationState = {};
      createSessionExchange(invocationState, { inbound: { interrupt_state }, resuming: true, logger });
      expect(() => restoreSessionState(agent, invocationState, logger)).not.toThrow();
    }
  });

  test("a thread snapshot nested too deep is reported as corrupt", () => {
    const reports: string[] = [];
    expect(
      parseThreadSnapshot({ version: 1, threadId: "t", messages: [], state: nested(10_000) }, (r) => reports.push(r)),
    ).toBe(undefined);
    expect(reports).toHaveLength(1);
  });

  test("withinDepth is iterative and counts arrays and objects alike", () => {
    expect(withinDepth(nested(128))).toBe(true);
    expect(withinDepth(nested(129))).toBe(false);
    expect(withinDepth(nested(1_000_000))).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(withinDepth(cyclic)).toBe(false);
  });
});
