/**
 * Attacks on runs that outlive their view in the page: a Stop on another thread, a failure shown for another
 * thread, no lock manager (a page outside a secure context), one runner agent for every thread, a Stop in the
 * moment after a detach, a same-tab watcher detached at every point of a streamed answer, and a detached watch.
 */
import type { BaseEvent } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { Agent, MemoryExecutionLedger, ScriptedModel } from "../../../src/index.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { MemoryLocks } from "./reload-world.js";
import { user } from "../fixtures.js";
import { detachAfterThenWatch, detachedMidTransfer, pausedPage, settled, until } from "./detached-page.js";

describe("a run whose view left", () => {
  test("a Stop on thread t2 (right after sending there) does not stop t1's detached run", async () => {
    const { agent, bank, sessionStore } = await detachedMidTransfer();
    // The person opens thread t2, sends a message and presses Stop at once.
    agent.threadId = "t2";
    agent.pendingInterrupts = [];
    agent.setMessages([user("hello")]);
    const other = agent.runAgent();
    agent.abortRun();
    await other.catch(() => undefined);
    bank.open();
    const stored = await settled(sessionStore, "t1");
    expect(bank.sent).toEqual(["alice"]);
    expect(JSON.stringify(stored.messages)).not.toMatch(/cancel|cut off/i);
  });

  test("a Stop on thread t2 with nothing started there does not stop t1's detached run", async () => {
    const { agent, bank, sessionStore } = await detachedMidTransfer();
    agent.threadId = "t2";
    agent.abortRun();
    bank.open();
    const stored = await settled(sessionStore, "t1");
    expect(bank.sent).toEqual(["alice"]);
    expect(JSON.stringify(stored.messages)).not.toMatch(/cancel|cut off/i);
  });

  test("t1's detached run ending does not change runFailure of thread t2 now shown", async () => {
    const { agent, bank, sessionStore, resume } = await pausedPage();
    await sessionStore.save({
      version: 1,
      threadId: "t2",
      savedAt: Date.now(),
      messages: [user("x")],
      state: {},
      interrupts: [],
      run: {
        runId: "r2",
        status: "failed",
        tools: [],
        context: [],
        forwardedProps: {},
        error: { code: "MODEL_STREAM_ERROR", message: "boom" },
      },
    });
    const running = agent.runAgent({ resume });
    await until(() => bank.started.length === 1);
    await agent.detachActiveRun();
    await running;
    agent.threadId = "t2";
    agent.setMessages([]);
    await agent.connectAgent();
    expect(agent.runFailure?.message).toBe("boom");
    bank.open();
    await settled(sessionStore, "t1");
    await new Promise((r) => setTimeout(r, 20));
    expect(agent.runFailure?.message).toBe("boom");
  });

  test("locks: null — connectAgent() in the same tab does not drive the detached run a second time", async () => {
    const { agent, bank, sessionStore } = await detachedMidTransfer(null);
    const seen: BaseEvent[] = [];
    const watching = agent.connectAgent({}, { onEvent: ({ event }) => void seen.push(event) });
    await new Promise((r) => setTimeout(r, 50));
    bank.open();
    await watching.catch(() => undefined);
    await settled(sessionStore, "t1");
    await new Promise((r) => setTimeout(r, 50));
    expect(bank.started).toEqual(["alice"]);
    // The view follows the run; it is not a second drive that ends CALL_IN_PROGRESS.
    expect(seen.filter((e) => e.type === "RUN_ERROR")).toEqual([]);
    expect(seen.at(-1)?.type).toBe("RUN_FINISHED");
  });

  test("one runner agent for every thread: while t1's detached run goes on, a run on t2 is refused clearly and t1 is untouched", async () => {
    const { agent, bank, sessionStore } = await detachedMidTransfer(undefined, true);
    agent.threadId = "t2";
    agent.pendingInterrupts = [];
    agent.setMessages([user("hello")]);
    const events: BaseEvent[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) }).catch(() => undefined);
    bank.open();
    expect(events.find((e) => e.type === "RUN_ERROR")).toMatchObject({
      code: "RUN_IN_PROGRESS",
      message: expect.stringContaining("give KabooAgent a factory"),
    });
    const stored = await settled(sessionStore, "t1");
    expect(bank.sent).toEqual(["alice"]);
    expect(JSON.stringify(stored.messages)).toContain("sent 5 to alice");
  });

  test("a Stop right after a detach (the run still taking its record) stops it", async () => {
    const { agent, bank, sessionStore, resume } = await pausedPage();
    // The store is slow to take the run's first record.
    const save = sessionStore.save.bind(sessionStore);
    sessionStore.save = async (...a: Parameters<typeof save>) => {
      await new Promise((r) => setTimeout(r, 30));
      return save(...a);
    };
    const running = agent.runAgent({ resume });
    await new Promise((r) => setTimeout(r, 5));
    await agent.detachActiveRun();
    await running;
    const watching = agent.connectAgent();
    await new Promise((r) => setTimeout(r, 5));
    agent.abortRun();
    await watching.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    bank.open();
    await settled(sessionStore, "t1");
    expect(bank.started).toEqual([]);
  });
});

describe("the same resume twice, at once and again (two tabs over one store and ledger)", () => {
  test("sent from two tabs at once, and again after the driving tab's view left: the transfer runs once", async () => {
    const { agent, bank, sessionStore, resume } = await pausedPage();
    const other = agent.clone();
    const codes: string[] = [];
    const onRunErrorEvent = ({ event }: { event: { code?: string } }) => void codes.push(event.code ?? "");
    const both = [agent.runAgent({ resume }, { onRunErrorEvent }), other.runAgent({ resume }, { onRunErrorEvent })];
    await until(() => bank.started.length === 1);
    await agent.detachActiveRun();
    await other.detachActiveRun();
    await Promise.all(both.map((p) => p.catch(() => undefined)));
    // Again, while the transfer is still in flight.
    await other.runAgent({ resume }, { onRunErrorEvent }).catch(() => undefined);
    bank.open();
    const stored = await settled(sessionStore, "t1");
    expect(JSON.stringify(stored.messages)).toContain("sent 5 to alice");
    // And once more after the run ended: nothing runs.
    await other.runAgent({ resume }, { onRunErrorEvent }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(bank.started).toEqual(["alice"]);
    expect(bank.sent).toEqual(["alice"]);
    expect(codes.length).toBeGreaterThanOrEqual(2);
    expect(codes.every((c) => ["RUN_IN_PROGRESS", "STALE_THREAD"].includes(c))).toBe(true);
  });
});

describe("no lock manager (navigator.locks is absent outside secure contexts)", () => {
  test("detach mid-answer, connectAgent() in the same tab: the transfer runs once", async () => {
    const bank = newBank();
    const sessionStore = new MemorySessionStore();
    const agent = new KabooAgent({
      threadId: "t1",
      agent: () => bankAgent(bank, { gate: false, reasoning: true, delayMs: 10 }),
      sessionStore,
      ledger: new MemoryExecutionLedger(),
      locks: null,
    });
    agent.addMessage(user("pay alice 5"));
    const seen: BaseEvent[] = [];
    const running = agent.runAgent({}, { onEvent: ({ event }) => void seen.push(event) });
    await until(() => seen.length >= 2);
    await agent.detachActiveRun();
    await running;
    await agent.connectAgent().catch(() => undefined);
    await settled(sessionStore, "t1");
    await new Promise((r) => setTimeout(r, 300));
    expect(bank.sent).toEqual(["alice"]);
  });
});

describe("a same-tab watcher of a detached run", () => {
  const TEXT = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
  for (const k of [1, 2, 3, 4, 6, 9, 14, 20, 30]) {
    test(`detached after ${k} events: the watcher gets the text once, whole`, async () => {
      const model = new ScriptedModel({ delayMs: 1, chunkSize: 3, script: () => ({ text: TEXT }) } as never);
      const sessionStore = new MemorySessionStore();
      const agent = new KabooAgent({
        threadId: "t1",
        agent: () => new Agent({ name: "bank", model }),
        sessionStore,
        ledger: new MemoryExecutionLedger(),
        locks: new MemoryLocks() as unknown as LockManager,
      });
      agent.addMessage(user("hi"));
      const watched = await detachAfterThenWatch(agent, k);
      const starts = watched.filter((e) => e.type === "TEXT_MESSAGE_START");
      expect(starts.length).toBe(1);
      if (starts.length === 1) {
        const id = (starts[0] as unknown as { messageId: string }).messageId;
        const text = watched
          .filter((e) => e.type === "TEXT_MESSAGE_CONTENT" && (e as unknown as { messageId: string }).messageId === id)
          .map((e) => (e as unknown as { delta: string }).delta)
          .join("");
        expect(text).toBe(TEXT);
      }
      expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: TEXT });
      expect(watched.at(-1)?.type).toBe("RUN_FINISHED");
    });
  }
});

describe("a detached watch ends and lets go", () => {
  test("watching another tab's run, detached: the lock request is withdrawn, nothing is taken over", async () => {
    const locks = new MemoryLocks();
    let releaseOther = () => {};
    const held = new Promise<void>((r) => (releaseOther = r));
    let granted!: () => void;
    const otherHas = new Promise<void>((r) => (granted = r));
    void locks.request("kaboo-run:t1", async () => {
      granted();
      await held;
    });
    await otherHas;
    const sessionStore = new MemorySessionStore();
    const model = new ScriptedModel({ script: () => ({ text: "hello" }) });
    const runs: number[] = [];
    const agent = new KabooAgent({
      threadId: "t1",
      agent: () => {
        runs.push(1);
        return new Agent({ name: "a", model });
      },
      sessionStore,
      ledger: new MemoryExecutionLedger(),
      locks: locks as unknown as LockManager,
    });
    const watching = agent.connectAgent();
    await new Promise((r) => setTimeout(r, 10));
    await agent.detachActiveRun();
    await watching;
    await new Promise((r) => setTimeout(r, 10));
    releaseOther();
    await new Promise((r) => setTimeout(r, 30));
    expect((await locks.query()).held).toEqual([]);
    expect(runs).toEqual([]);
  });
});
