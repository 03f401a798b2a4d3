import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  BeforeToolCallEvent,
  InterruptState,
  ScriptedModel,
  UnknownInterruptIdError,
  tool,
  type HookProvider,
  type HookRegistry,
  type InvocationState,
  type Message,
} from "../../src/index.js";
import { SessionExchange } from "../../src/agent/interrupts/session.js";
import { createSessionExchange, getSessionExchange } from "../../src/agent/interrupts/session-exchange.js";
import { SESSION_EXCHANGE_KEY } from "../../src/agent/run-context.js";
import {
  SessionStateHook,
  restoreSessionState,
  sessionStateSnapshot,
  type SessionSnapshot,
} from "../../src/hooks/session-state-hook.js";
import { capturingLogger } from "../fixtures/logger.js";

const quiet = capturingLogger();
const logs = () => {
  const logger = capturingLogger();
  return { warns: logger.warns, logger };
};

/** Gates every call of `act` on an "approve" interrupt. */
class Gate implements HookProvider {
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeToolCallEvent, (e) => {
      if (e.toolUse.name !== "act") return;
      const answer = e.interrupt({ name: "approve", reason: { tool: "act" } }) as { approved?: boolean };
      if (!answer.approved) e.cancel = "Denied.";
    });
  }
}

function world() {
  const runs = new Map<string, number>();
  const act = tool({
    name: "act",
    description: "acts",
    inputSchema: z.object({ n: z.number() }),
    callback: (_input, ctx) => {
      runs.set(ctx.toolUse.toolUseId, (runs.get(ctx.toolUse.toolUseId) ?? 0) + 1);
      return "done";
    },
  });
  const look = tool({ name: "look", description: "looks", inputSchema: z.object({}), callback: () => "seen" });
  // One model for every agent: sequential ids stay unique across reloads.
  const model = new ScriptedModel({
    ids: "sequential",
    script: ({ lastToolResults, callIndex }) =>
      lastToolResults.length
        ? { text: "ok" }
        : {
            toolCalls:
              callIndex % 2
                ? [{ name: "act", input: { n: 1 } }, { name: "look" }]
                : [
                    { name: "act", input: { n: 2 } },
                    { name: "act", input: { n: 3 } },
                  ],
          },
  });
  const make = (messages: Message[] = []) =>
    new Agent({ model, tools: [act, look], hooks: [new Gate(), new SessionStateHook({ logger: quiet })], messages });
  return { runs, make };
}

function answers(ids: string[], approved = true) {
  return ids.map((interruptId) => ({ interruptResponse: { interruptId, response: { approved } } }));
}

describe("SessionExchange", () => {
  test("is stored under its key and found again; anything else under the key is ignored", () => {
    const st: InvocationState = {};
    const ex = createSessionExchange(st, { resuming: true });
    expect(st[SESSION_EXCHANGE_KEY]).toBe(ex);
    expect(getSessionExchange(st)).toBe(ex);
    expect(getSessionExchange({ [SESSION_EXCHANGE_KEY]: { resuming: true } })).toBeUndefined();
  });

  test("a malformed inbound snapshot is logged and the run starts clean", () => {
    for (const bad of ["junk", 42, [1, 2], { delegates: "nope" }, { delegates: { a: () => 1 } }]) {
      const { warns, logger } = logs();
      const ex = new SessionExchange(bad, true, logger);
      expect(ex.inbound).toEqual({});
      expect(warns).toHaveLength(1);
    }
  });

  test("keeps interrupt_state as sent and copies delegates", () => {
    const ex = new SessionExchange({ interrupt_state: { x: 1 }, delegates: { sub: { a: 1 } } }, false, quiet);
    expect(ex.inbound.interrupt_state).toEqual({ x: 1 });
    expect(ex.delegates).toEqual({ sub: { a: 1 } });
  });
});

describe("restoreSessionState / sessionStateSnapshot", () => {
  async function paused() {
    const w = world();
    const agent = w.make();
    const st: InvocationState = {};
    createSessionExchange(st, {});
    const result = await agent.invoke("go", { invocationState: st });
    expect(result.stopReason).toBe("interrupt");
    const snapshot = sessionStateSnapshot(st);
    return { ...w, agent, result, snapshot: snapshot as SessionSnapshot };
  }

  test("no exchange, or no agent recorded → nothing restored, null snapshot", () => {
    const agent = world().make();
    expect(restoreSessionState(agent, {})).toBe(false);
    expect(sessionStateSnapshot({})).toBeNull();
    const st: InvocationState = {};
    createSessionExchange(st, {});
    expect(sessionStateSnapshot(st)).toBeNull();
  });

  test("a paused run's snapshot carries interrupt_state; a cold agent resumes from it once", async () => {
    const { snapshot, make, runs, agent } = await paused();
    expect(snapshot.interrupt_state.activated).toBe(true);
    expect(Object.keys(snapshot.interrupt_state.interrupts)).toHaveLength(2);
    expect(snapshot.delegates).toBeUndefined();
    const cold = make(agent.messages);
    const st: InvocationState = {};
    createSessionExchange(st, { inbound: snapshot, resuming: true });
    expect(restoreSessionState(cold, st, quiet)).toBe(true);
    expect(restoreSessionState(cold, st, quiet)).toBe(false); // at most once per run
    const result = await cold.invoke(answers(cold.interruptState.pendingIds()), { invocationState: st });
    expect(result.stopReason).toBe("endTurn");
    expect([...runs.values()]).toEqual([1, 1]);
    // Nothing pending, but the client sent state: a clean state goes back so the gate is cleared.
    const after = sessionStateSnapshot(st);
    expect(after?.interrupt_state.activated).toBe(false);
    expect(after?.interrupt_state.interrupts).toEqual({});
  });

  test("a fresh run never restores, even with a pending state", async () => {
    const { snapshot, make, agent } = await paused();
    const cold = make(agent.messages);
    const st: InvocationState = {};
    createSessionExchange(st, { inbound: snapshot, resuming: false });
    expect(restoreSessionState(cold, st, quiet)).toBe(false);
    expect(cold.interruptState.activated).toBe(false);
    expect(getSessionExchange(st)?.agent).toBe(cold);
  });

  test("a warm agent's own state is never overwritten", async () => {
    const { snapshot, agent } = await paused();
    const mine = agent.interruptState;
    const other = structuredClone(snapshot);
    other.interrupt_state.interrupts = {};
    const st: InvocationState = {};
    createSessionExchange(st, { inbound: other, resuming: true });
    expect(restoreSessionState(agent, st, quiet)).toBe(false);
    expect(agent.interruptState).toBe(mine);
    expect(getSessionExchange(st)?.restored).toBe(true);
  });

  test("a snapshot older than the transcript is refused (its gate was answered)", async () => {
    const { snapshot, agent } = await paused();
    const st1: InvocationState = {};
    createSessionExchange(st1, { inbound: snapshot, resuming: true });
    await agent.invoke(answers(agent.interruptState.pendingIds()), { invocationState: st1 });
    expect(agent.interruptState.activated).toBe(false);
    const { warns, logger } = logs();
    const st2: InvocationState = {};
    createSessionExchange(st2, { inbound: snapshot, resuming: true });
    expect(restoreSessionState(agent, st2, logger)).toBe(false);
    expect(warns.join()).toMatch(/older than the transcript/);
    expect(agent.interruptState.activated).toBe(false);
  });

  test("a corrupt or unknown-version interrupt_state is logged; the agent starts clean", async () => {
    const { snapshot, make } = await paused();
    const corrupt = [
      { interrupt_state: { ...snapshot.interrupt_state, version: 99 } },
      { interrupt_state: { ...snapshot.interrupt_state, activated: "yes" } },
      { interrupt_state: { interrupts: { a: { id: "b", name: "x" } }, activated: true, version: 1, context: {} } },
    ];
    for (const inbound of corrupt) {
      const cold = make();
      const { warns, logger } = logs();
      const st: InvocationState = {};
      createSessionExchange(st, { inbound, resuming: true });
      expect(restoreSessionState(cold, st, logger)).toBe(false);
      expect(warns.join()).toMatch(/restore failed/);
      expect(cold.interruptState.activated).toBe(false);
      // The client sent (corrupt) state: it is replaced by a clean one.
      expect(sessionStateSnapshot(st)?.interrupt_state.activated).toBe(false);
    }
  });

  test("null when nothing is pending and the client sent no state; delegates go along when present", async () => {
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ text: "hi" }] }),
      hooks: [new SessionStateHook()],
    });
    const st: InvocationState = {};
    const ex = createSessionExchange(st, {});
    await agent.invoke("hi", { invocationState: st });
    expect(ex.agent).toBe(agent); // recorded by the hook
    expect(sessionStateSnapshot(st)).toBeNull();
    const { snapshot } = await paused();
    const st2: InvocationState = {};
    const ex2 = createSessionExchange(st2, { inbound: { delegates: { sub: { interrupt_state: null } } } });
    restoreSessionState(agent, st2);
    agent.interruptState = InterruptState.fromJSON(snapshot.interrupt_state);
    ex2.delegates.other = { k: 1 };
    const out = sessionStateSnapshot(st2);
    expect(out?.delegates).toEqual({ sub: { interrupt_state: null }, other: { k: 1 } });
    // The snapshot is a copy: the agent moving on does not change it.
    agent.interruptState.clear();
    expect(out?.interrupt_state.activated).toBe(true);
  });

  test("the hook's call after the host's is harmless, across invocations of one run", async () => {
    const { snapshot, make, agent, runs } = await paused();
    const cold = make(agent.messages);
    const st: InvocationState = {};
    createSessionExchange(st, { inbound: snapshot, resuming: true });
    restoreSessionState(cold, st, quiet);
    await cold.invoke(answers(cold.interruptState.pendingIds()), { invocationState: st });
    // A second invocation in the same run (e.g. a delegate called again) must not bring the gate back.
    const again = await cold.invoke("go", { invocationState: st });
    expect(again.stopReason).toBe("interrupt");
    expect(again.interrupts.every((i) => !Object.keys(snapshot.interrupt_state.interrupts).includes(i.id))).toBe(true);
    expect(Math.max(...runs.values())).toBe(1);
  });
});

describe("property: an answered gate never comes back", () => {
  type Step = { kind: "send" | "answer"; reload: boolean; replayBack: number; approve: boolean };
  const step = fc.record({
    kind: fc.constantFrom<"send" | "answer">("send", "answer", "answer"),
    reload: fc.boolean(),
    replayBack: fc.nat({ max: 6 }),
    approve: fc.boolean(),
  });

  test("over runs, resumes, reloads and replays of older snapshots", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps: Step[]) => {
        const { runs, make } = world();
        const answered = new Set<string>();
        const history: (SessionSnapshot | null)[] = [null];
        let transcript: Message[] = [];
        let warm: Agent | undefined;
        for (const s of steps) {
          const agent = s.reload || !warm ? make(transcript) : warm;
          const inbound = history[Math.max(0, history.length - 1 - s.replayBack)] ?? null;
          const st: InvocationState = {};
          createSessionExchange(st, { inbound, resuming: s.kind === "answer", logger: quiet });
          restoreSessionState(agent, st, quiet);
          for (const id of agent.interruptState.pendingIds()) expect(answered.has(id)).toBe(false);
          let ok = true;
          try {
            if (s.kind === "send") {
              // A new message supersedes whatever gate is still open.
              if (agent.interruptState.activated) agent.discardInterrupts();
              await agent.invoke("go", { invocationState: st });
            } else {
              // The client answers what its (possibly stale) snapshot shows.
              const shown = Object.values(inbound?.interrupt_state.interrupts ?? {})
                .filter((i) => i.response === undefined)
                .map((i) => i.id);
              if (shown.length === 0) continue;
              const result = await agent.invoke(answers(shown, s.approve), { invocationState: st });
              for (const id of shown) answered.add(id);
              for (const i of result.interrupts) expect(answered.has(i.id)).toBe(false);
            }
          } catch (error) {
            // A stale answer is refused cleanly; nothing else may fail.
            if (
              !(error instanceof Error) ||
              !["UNKNOWN_INTERRUPT_ID", "PARTIAL_RESUME"].includes((error as { code?: string }).code ?? "")
            )
              throw error;
            ok = false;
          }
          if (ok) history.push(sessionStateSnapshot(st, quiet));
          transcript = agent.messages;
          warm = agent;
          for (const n of runs.values()) expect(n).toBe(1);
          for (const id of agent.interruptState.pendingIds()) expect(answered.has(id)).toBe(false);
        }
      }),
      { numRuns: 150 },
    );
  });

  test("UnknownInterruptIdError is what a cold agent without state gives", async () => {
    const cold = world().make();
    await expect(cold.invoke(answers(["hook:beforeToolCall:x:approve"]))).rejects.toBeInstanceOf(
      UnknownInterruptIdError,
    );
  });
});
