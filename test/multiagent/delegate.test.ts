import { describe, expect, it } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  BeforeToolCallEvent,
  ScriptedModel,
  tool,
  type HookProvider,
  type HookRegistry,
  type JsonValue,
} from "../../src/index.js";
import { createSessionExchange } from "../../src/agent/interrupts/session-exchange.js";
import { restoreSessionState, sessionStateSnapshot } from "../../src/hooks/session-state-hook.js";
import { agentAsTool } from "../../src/multiagent/index.js";

class Gate implements HookProvider {
  registerHooks(r: HookRegistry): void {
    r.addCallback(BeforeToolCallEvent, (e) => {
      if (e.toolUse.name !== "pay") return;
      const answer = e.interrupt({
        name: "kaboo_approval",
        reason: { kind: "tool_approval", tool: "pay", toolUseId: e.toolUse.toolUseId },
      }) as { approved?: boolean };
      if (answer.approved !== true) e.cancel = "Denied.";
    });
  }
}

/** A parent with a `billing` delegate whose `pay` tool needs approval; counts `pay` runs. */
function build(counter: { runs: number }) {
  const pay = tool({
    name: "pay",
    description: "Pays",
    inputSchema: z.object({ amount: z.number() }),
    callback: ({ amount }) => (counter.runs++, `paid ${amount}`),
  });
  const billing = new Agent({
    name: "billing",
    tools: [pay],
    hooks: [new Gate()],
    model: new ScriptedModel({
      script: (r) =>
        r.lastToolResults.length
          ? { text: `Billing done: ${JSON.stringify(r.lastToolResults[0]?.content)}` }
          : { toolCalls: [{ name: "pay", input: { amount: 42 }, id: "pay_1" }] },
    }),
  });
  const delegate = agentAsTool(billing, { name: "billing", description: "Handles payments." });
  const parent = new Agent({
    name: "lead",
    tools: [delegate],
    model: new ScriptedModel({
      script: (r) =>
        r.lastToolResults.length
          ? { text: `Lead: ${JSON.stringify(r.lastToolResults[0]?.content)}` }
          : { toolCalls: [{ name: "billing", input: { task: "pay 42" }, id: "del_1" }] },
    }),
  });
  return { parent, billing, delegate };
}

describe("agentAsTool", () => {
  it("is a tool of kind agent that returns the delegate's final text", async () => {
    const sub = new Agent({ name: "sub", model: new ScriptedModel({ script: [{ text: "sub answer" }] }) });
    const t = agentAsTool(sub, { name: "sub", description: "d" });
    expect(t.kind).toBe("agent");
    await new Agent({ model: new ScriptedModel({ script: [] }), tools: [t] }).prepareTools();
    expect(t.spec.inputSchema).toMatchObject({ properties: { task: { type: "string" } } });
    const parent = new Agent({
      model: new ScriptedModel({
        script: [
          { toolCalls: [{ name: "sub", input: { task: "hi" } }] },
          (r) => ({ text: JSON.stringify(r.lastToolResults[0]?.content) }),
        ],
      }),
      tools: [t],
    });
    const r = await parent.invoke("go");
    expect(r.stopReason).toBe("endTurn");
    expect(JSON.stringify(r.message)).toContain("sub answer");
    const bad = new Agent({
      model: new ScriptedModel({ script: [{ toolCalls: [{ name: "sub", input: { nope: 1 } }] }, { text: "x" }] }),
      tools: [agentAsTool(new Agent({ model: new ScriptedModel({ script: [] }) }), { name: "sub", description: "d" })],
    });
    await bad.invoke("go");
    expect(JSON.stringify(bad.messages[2])).toContain("Invalid input");
  });

  it("a delegate's approval pauses the parent; paused, snapshotted, restored into fresh agents, resumed exactly once", async () => {
    const counter = { runs: 0 };
    const first = build(counter);
    const state1: Record<string, unknown> = {};
    createSessionExchange(state1, { resuming: false });
    restoreSessionState(first.parent, state1);
    const paused = await first.parent.invoke("pay the invoice", { invocationState: state1 });
    expect(paused.stopReason).toBe("interrupt");
    expect(paused.interrupts).toHaveLength(1);
    const ask = paused.interrupts[0];
    expect(ask?.id).toBe("tool:del_1:kaboo_approval");
    expect(ask?.reason).toEqual({ kind: "tool_approval", tool: "pay", toolUseId: "pay_1" });
    expect(counter.runs).toBe(0);
    const snapshot = JSON.parse(JSON.stringify(sessionStateSnapshot(state1)));
    expect(Object.keys(snapshot.delegates)).toEqual(["billing"]);

    // A reload: fresh agents, state only from the JSON snapshot.
    const second = build(counter);
    const state2: Record<string, unknown> = {};
    createSessionExchange(state2, { inbound: snapshot, resuming: true });
    expect(restoreSessionState(second.parent, state2)).toBe(true);
    const done = await second.parent.invoke(
      [{ interruptResponse: { interruptId: ask?.id as string, response: { approved: true } as JsonValue } }],
      { invocationState: state2 },
    );
    expect(done.stopReason).toBe("endTurn");
    expect(counter.runs).toBe(1);
    expect(JSON.stringify(done.message)).toContain("paid 42");
    expect(second.billing.interruptState.activated).toBe(false);
    // The delegate's entry is gone once it finished: the next snapshot does not bring it back.
    expect(sessionStateSnapshot(state2)?.delegates).toBeUndefined();
    // Its transcript holds the paused call and its single result.
    const results = second.billing.messages.flatMap((m) => m.content).filter((b) => b.type === "toolResult");
    expect(results).toHaveLength(1);
    // Resuming the same (now finished) agent again is refused, not replayed.
    await expect(
      second.parent.invoke([{ interruptResponse: { interruptId: ask?.id as string, response: { approved: true } } }]),
    ).rejects.toMatchObject({ code: "UNKNOWN_INTERRUPT_ID" });
    expect(counter.runs).toBe(1);
  });

  it("resumes a warm parent and delegate without a session exchange; a denial does not run the tool", async () => {
    const counter = { runs: 0 };
    const { parent } = build(counter);
    const paused = await parent.invoke("pay");
    const id = paused.interrupts[0]?.id as string;
    const done = await parent.invoke([{ interruptResponse: { interruptId: id, response: { approved: false } } }]);
    expect(done.stopReason).toBe("endTurn");
    expect(counter.runs).toBe(0);
    expect(JSON.stringify(done.message)).toContain("Denied");
  });

  it("refuses to resume a fresh delegate from a malformed snapshot", async () => {
    const counter = { runs: 0 };
    const first = build(counter);
    const s1: Record<string, unknown> = {};
    createSessionExchange(s1);
    restoreSessionState(first.parent, s1);
    const paused = await first.parent.invoke("pay", { invocationState: s1 });
    const snap = JSON.parse(JSON.stringify(sessionStateSnapshot(s1)));
    snap.delegates.billing.interrupt_state = { version: 99 };
    const second = build(counter);
    const s2: Record<string, unknown> = {};
    createSessionExchange(s2, { inbound: snap, resuming: true });
    restoreSessionState(second.parent, s2);
    const r = await second.parent.invoke(
      [{ interruptResponse: { interruptId: paused.interrupts[0]?.id as string, response: { approved: true } } }],
      { invocationState: s2 },
    );
    expect(counter.runs).toBe(0);
    expect(JSON.stringify(second.parent.messages)).toMatch(/Malformed interrupt state|cannot resume/);
    expect(r.stopReason).toBe("endTurn");
  });
});
