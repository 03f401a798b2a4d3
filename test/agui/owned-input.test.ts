/**
 * A run handed its input (`ownsInput`, as the edge handler does with its own parse of the body)
 * uses the state and forwarded props in place: no whole-object copy of a wide state per run.
 */
import { EventType } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { runAgui } from "../../src/agui/index.js";
import { runContext } from "../../src/agent/run-context.js";
import { Agent, ScriptedModel, type HookProvider, BeforeInvocationEvent } from "../../src/index.js";
import { collect, input } from "./helpers.js";

function agentSeeing(seen: { state?: unknown; props?: unknown }) {
  const spy: HookProvider = {
    registerHooks(r) {
      r.addCallback(BeforeInvocationEvent, (e) => {
        seen.state = runContext.sharedState.find(e.invocationState);
        seen.props = runContext.forwardedProps.find(e.invocationState);
      });
    },
  };
  return new Agent({ model: new ScriptedModel({ script: () => ({ text: "ok" }) }), hooks: [spy] });
}

describe("ownsInput", () => {
  test("the run's shared state and props are the input's own objects, and the snapshot is that state", async () => {
    const state: Record<string, unknown> = { a: 1 };
    const forwardedProps = { kaboo_grants: [] };
    const seen: { state?: unknown; props?: unknown } = {};
    const events = await collect(
      runAgui({
        agent: agentSeeing(seen),
        input: input({ state, forwardedProps, messages: [{ id: "u", role: "user", content: "hi" }] }),
        ownsInput: true,
      }),
    );
    expect(seen.state).toBe(state);
    expect(seen.props).toBe(forwardedProps);
    const snapshot = events.find((e) => e.type === EventType.STATE_SNAPSHOT) as unknown as { snapshot: unknown };
    expect(snapshot.snapshot).toBe(state);
  });

  test("by default both are copied, and the caller's objects stay as they were", async () => {
    const state: Record<string, unknown> = { a: 1 };
    const forwardedProps = { kaboo_grants: [] };
    const seen: { state?: unknown; props?: unknown } = {};
    await collect(
      runAgui({
        agent: agentSeeing(seen),
        input: input({ state, forwardedProps, messages: [{ id: "u", role: "user", content: "hi" }] }),
      }),
    );
    expect(seen.state).not.toBe(state);
    expect(seen.state).toEqual(state);
    expect(seen.props).not.toBe(forwardedProps);
    expect(state).toEqual({ a: 1 });
  });
});
