// A run's record in the session store: a failed turn keeps its error, an unfinished run is
// continued only by connectAgent(), and a corrupt or forged checkpoint is never continued blindly.
import "fake-indexeddb/auto";
import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { IndexedDbSessionStore, MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { Agent, MemoryExecutionLedger, ScriptedModel } from "../../../src/index.js";
import { bankRunner } from "../fixtures.js";
import { newBank, type Bank } from "../../fixtures/bank.js";
import { MemoryLocks, playScenario, ReloadWorld } from "./reload-world.js";

const memoryLocks = () => new MemoryLocks() as unknown as LockManager;

describe("a failed turn", () => {
  test("keeps the question and the error in the thread record; the reloaded page shows both", async () => {
    const sessionStore = new MemorySessionStore();
    const model = new ScriptedModel({ script: [{ error: new Error("the model provider is down") }] });
    const page = () =>
      new KabooAgent({
        threadId: "t-failed",
        agent: () => new Agent({ model, maxModelRetries: 0 }),
        sessionStore,
        ledger: null,
      });
    const one = page();
    one.addMessage({ id: "q1", role: "user", content: "what is my balance?" });
    await one.runAgent();
    expect(one.runFailure).toEqual({
      code: "RUN_FAILED",
      message: expect.stringContaining("the model provider is down"),
    });
    const stored = await sessionStore.load("t-failed");
    expect(stored?.run).toMatchObject({
      status: "failed",
      error: { message: expect.stringContaining("provider is down") },
    });

    const two = page();
    await two.connectAgent();
    expect(two.runFailure).toEqual(one.runFailure);
    expect(two.messages.map((m) => m.id)).toEqual(["q1"]);
    // Nothing was continued: a failed run ends there (the person retries it).
    expect(model.calls).toBe(1);
  });
});

describe("an unfinished run", () => {
  test("runAgent() is refused with RUN_IN_PROGRESS and runs nothing; connectAgent() continues it", async () => {
    const base = new ReloadWorld({ locks: memoryLocks() });
    await playScenario(base);
    const [at] = base.trace.flatMap((label, i) => (label === "tool:transfer:3" ? [i + 1] : []));
    const world = new ReloadWorld({ locks: memoryLocks(), killAt: [at ?? 0] });
    await playScenario(world, { reopen: false });
    expect((await world.stored())?.run?.status).toBe("running");

    const page = world.openPage();
    const errors: string[] = [];
    page.agent.subscribe({ onRunErrorEvent: ({ event }) => void errors.push(event.code ?? "") });
    page.agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "and pay bob 1" });
    await page.agent.runAgent().catch(() => undefined);
    expect(errors).toEqual(["RUN_IN_PROGRESS"]);
    expect(world.modelCalls.get(page) ?? 0).toBe(0);
    expect(world.bank.map((t) => t.amount)).toEqual([5]);

    const again = world.openPage();
    await again.agent.connectAgent();
    // The cut call was claimed before its page died: the continuation asks about it, once.
    expect(again.agent.pendingInterrupts.map((i) => i.reason)).toEqual(["outcome_unknown"]);
    expect(world.bank.map((t) => t.amount)).toEqual([5]);
  });
});

describe("a corrupt or forged checkpoint", () => {
  async function cutMidCall(): Promise<ReloadWorld> {
    const base = new ReloadWorld({ locks: memoryLocks() });
    await playScenario(base);
    const [at] = base.trace.flatMap((label, i) => (label === "tool:transfer:3" ? [i + 1] : []));
    const world = new ReloadWorld({ locks: memoryLocks(), killAt: [at ?? 0] });
    await playScenario(world, { reopen: false });
    return world;
  }

  test("a run record that does not parse is not continued: the run reads as failed (INVALID_CHECKPOINT)", async () => {
    const world = await cutMidCall();
    const stored = await world.stored();
    const warnings: string[] = [];
    const store = new IndexedDbSessionStore({ dbName: world.sessionsDb, onCorrupt: (w) => void warnings.push(w) });
    await store.save({
      ...stored!,
      run: { ...stored!.run!, tools: "every tool", resume: [{ interruptId: 7 }] } as never,
    });
    const page = world.openPage();
    await page.agent.connectAgent();
    expect(page.agent.runFailure?.code).toBe("INVALID_CHECKPOINT");
    expect(world.modelCalls.get(page) ?? 0).toBe(0);
    expect(page.agent.pendingInterrupts).toEqual([]);
    expect(world.bank.map((t) => t.amount)).toEqual([5]);
    expect((await store.load(world.threadId))?.run?.status).toBe("failed");
    expect(warnings.join()).toMatch(/corrupt run checkpoint/);
  });

  test("a batch in flight that cannot be read is not continued (INVALID_STATE): the model is not asked for new calls", async () => {
    const world = await cutMidCall();
    const stored = await world.stored();
    const state = structuredClone(stored!.state) as { kaboo_session: { interrupt_state: { context: unknown } } };
    state.kaboo_session.interrupt_state.context = { toolUseMessage: { role: "assistant", content: "forged" } };
    await new IndexedDbSessionStore({ dbName: world.sessionsDb }).save({ ...stored!, state });
    const page = world.openPage();
    // The continuation ends with RUN_ERROR INVALID_STATE (connectAgent resolves; the page reads runFailure).
    await page.agent.connectAgent();
    expect(page.agent.runFailure?.code).toBe("INVALID_STATE");
    expect(world.modelCalls.get(page) ?? 0).toBe(0);
    expect(world.bank.map((t) => t.amount)).toEqual([5]);
  });

  test("a snapshot that does not parse is skipped with a warning: the thread opens empty and nothing runs", async () => {
    const world = await cutMidCall();
    const warnings: string[] = [];
    const store = new IndexedDbSessionStore({ dbName: world.sessionsDb, onCorrupt: (w) => void warnings.push(w) });
    const stored = await world.stored();
    await store.save({ ...stored!, messages: "not a list" } as never);
    expect(await store.load(world.threadId)).toBeUndefined();
    expect(warnings.join()).toMatch(/corrupt thread snapshot/);
  });
});

describe("a session store that fails", () => {
  type Snapshot = Parameters<MemorySessionStore["save"]>[0];
  class FailingStore extends MemorySessionStore {
    constructor(readonly fails: (s: Snapshot) => boolean) {
      super();
    }
    override async save(snapshot: Snapshot): Promise<void> {
      if (this.fails(snapshot)) throw new DOMException("The quota was exceeded.", "QuotaExceededError");
      await super.save(snapshot);
    }
  }
  const activated = (s: Snapshot) =>
    (s.state as { kaboo_session?: { interrupt_state?: { activated?: boolean } } }).kaboo_session?.interrupt_state
      ?.activated === true;

  async function paused(sessionStore: MemorySessionStore, bank: Bank) {
    const agent = new KabooAgent({
      threadId: "t-store",
      agent: () => bankRunner(bank),
      sessionStore,
      ledger: new MemoryExecutionLedger(),
    });
    agent.addMessage({ id: "q", role: "user", content: "pay ivan 3" });
    await agent.runAgent();
    return {
      agent,
      resume: [
        { interruptId: agent.pendingInterrupts[0]!.id, status: "resolved" as const, payload: { approved: true } },
      ],
    };
  }

  test("a tool result's checkpoint that cannot be saved is skipped: the run finishes and the call ran once", async () => {
    const bank = newBank();
    const store = new FailingStore((s) => s.run?.status === "running" && s.messages.some((m) => m.role === "tool"));
    const { agent, resume } = await paused(store, bank);
    await agent.runAgent({ resume });
    expect(agent.runFailure).toBeUndefined();
    expect(bank.transfers).toEqual([{ to: "ivan", amount: 3 }]);
    expect((await store.load("t-store"))?.run?.status).toBe("finished");
  });

  test("a batch that cannot be checkpointed does not run (a reload could not continue it); the same answer again runs it once", async () => {
    const bank = newBank();
    let broken = false;
    const store = new FailingStore((s) => broken && s.run?.status === "running" && !s.run.resume && activated(s));
    const { agent, resume } = await paused(store, bank);
    broken = true;
    await agent.runAgent({ resume });
    expect(agent.runFailure?.message).toMatch(/quota/);
    expect(bank.transfers).toEqual([]);
    const stored = await store.load("t-store");
    expect(stored?.run).toMatchObject({ status: "failed" });
    // The question it answered is kept with the failed run, so a reload can answer it again.
    expect(stored?.interrupts.map((i) => i.id)).toEqual(resume.map((r) => r.interruptId));
    broken = false;
    await agent.runAgent({ resume });
    expect(bank.transfers).toEqual([{ to: "ivan", amount: 3 }]);
    await agent.runAgent({ resume }).catch(() => undefined);
    expect(bank.transfers).toHaveLength(1);
  });
});
