/**
 * A Stop outlives the process that heard it. Process A runs a turn and accepts a Stop (202), then
 * dies before its run reaches the safe point (its end is never written, its hold runs out); process
 * B, on the same store, is sent the same request again (the same run id) and continues the run:
 * it sees the Stop in the run's lease and ends the run `cancelled` without calling the model or
 * starting a call; a call A had claimed and never finished stays an outcome-unknown question (it
 * may have run: never read as cancelled). A Stop of an ended run never touches the next one, and a
 * Stop sent twice or racing the run's end leaves nothing behind.
 */
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { STOPPED_BEFORE_RUN } from "../../../src/agui/edge/run/safe-stop.js";
import { ScriptedModel } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";
import { deferred } from "../../agent/helpers.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { input } from "../helpers.js";
import { post, quietLogger, send } from "./fixtures.js";

const LEASE_MS = 200;
const never = () => new Promise<never>(() => {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Process A's view of the store: it never writes a run's end (it dies first), and once killed
 * nothing it asks of the store (lease renewals, ledger settles) ever lands.
 */
function dying(store: MemoryThreadStore): ThreadStore & { kill(): void; ending: Promise<void> } {
  let dead = false;
  const ending = deferred();
  return {
    kill: () => {
      dead = true;
    },
    ending: ending.promise,
    load: (t) => (dead ? never() : store.load(t)),
    compareAndSet: (t, v, d) => {
      if (d.lease === null) ending.resolve();
      return dead || d.lease === null ? never() : store.compareAndSet(t, v, d);
    },
    ledger: (t) => {
      const ledger = store.ledger(t);
      return {
        claim: (k, o) => (dead ? never() : ledger.claim(k, o)),
        settle: (k, tok, r) => (dead ? never() : ledger.settle(k, tok, r)),
        release: (k, tok) => (dead ? never() : ledger.release(k, tok)),
      };
    },
  };
}

/**
 * Process B's view: the same store, another isolate's registry of live runs. With `settleMs`, a
 * settle takes that long, as a write to a store over the network does (the memory store's is at once).
 */
function other(store: MemoryThreadStore, settleMs = 0): ThreadStore {
  return {
    load: (t) => store.load(t),
    compareAndSet: (t, v, d) => store.compareAndSet(t, v, d),
    ledger: (t) => {
      const ledger = store.ledger(t);
      if (!settleMs) return ledger;
      return {
        claim: (k, o) => ledger.claim(k, o),
        settle: async (k, tok, r) => {
          await sleep(settleMs);
          await ledger.settle(k, tok, r);
        },
        release: (k, tok) => ledger.release(k, tok),
      };
    },
  };
}

function setup(o: { settleMs?: number } = {}) {
  const modelCalls: string[] = [];
  const gate = deferred();
  const bobGate = deferred();
  bobGate.resolve();
  let bob = bobGate;
  let skew = 0;
  const store = new MemoryThreadStore({ now: () => Date.now() + skew });
  const bank = newBank();
  const model = () =>
    new ScriptedModel({
      script: ({ lastUserText, lastToolResults }) => {
        modelCalls.push(lastToolResults.length ? "after tools" : lastUserText);
        if (lastToolResults.length) return { text: "Done." };
        if (lastUserText === "pay both")
          return {
            toolCalls: [
              { name: "transfer", input: { to: "alice" } },
              { name: "transfer", input: { to: "bob" } },
            ],
          };
        if (lastUserText === "hi") return { text: "hello" };
        return { text: "a long answer ".repeat(80) };
      },
      chunkSize: 4,
      delayMs: 2,
    });
  const agent = () =>
    bankAgent(bank, {
      model: model(),
      payeeOnly: true,
      // Alice's transfer is in flight when process A dies: it never returns there.
      beforeMoving: ({ to }) => (to === "alice" ? gate.promise : bob.promise),
      gate: { remember: false, agentName: "" },
      toolExecutor: "sequential",
    });
  const a = dying(store);
  const handler = (s: ThreadStore) =>
    createAguiHandler({
      stores: { thread: s },
      agent,
      logger: quietLogger(),
      trust: { principal: () => "ann" },
      timing: { runLeaseMs: LEASE_MS },
    });
  const handleA = handler(a);
  const handleB = handler(other(store, o.settleMs));
  const stop = (h: typeof handleA, runId?: string) =>
    h(post({ kaboo_cancel: { threadId: "t", ...(runId ? { runId } : {}) } }));
  /** Resolves once the stored lease has run out (its holder stopped renewing it). */
  const leaseRunOut = async () => {
    for (;;) {
      const { lease } = await store.load("t");
      if (lease === null || lease.expiresAt < Date.now()) return lease;
      await sleep(20);
    }
  };
  return {
    started: bank.started,
    modelCalls,
    gate,
    store,
    a,
    handleA,
    handleB,
    stop,
    leaseRunOut,
    skewLedger: (ms: number) => {
      skew = ms;
    },
    /** Bob's transfer waits for the returned function to be called. */
    holdBob: () => {
      bob = deferred();
      return bob.resolve;
    },
  };
}

const say = (text: string) =>
  input({ threadId: "t", messages: [{ id: crypto.randomUUID(), role: "user", content: text }] });

/** "pay both" asked on B, and the resume approving both transfers. */
async function bothApproved(s: ReturnType<typeof setup>) {
  const asked = await send(s.handleB, say("pay both"));
  const resume = input({
    threadId: "t",
    messages: asked.messages,
    state: asked.state,
    resume: asked.interrupts.map((i) => ({
      interruptId: i.id,
      status: "resolved" as const,
      payload: { approved: true },
    })),
  });
  return { asked, resume };
}

/** Sends a run to A and does not read it (A dies with it). */
function startOnA(s: ReturnType<typeof setup>, body: unknown): void {
  void s.handleA(post(body)).then((r) => r.body?.cancel());
}

describe("a Stop survives the process that accepted it", () => {
  test("a new turn: Stop accepted, process dies before the end; the run again ends cancelled, the model not called", async () => {
    const s = setup();
    const body = say("tell me a story");
    startOnA(s, body);
    while (s.modelCalls.length === 0) await sleep(5);
    await sleep(30);
    expect((await s.stop(s.handleA)).status).toBe(202);
    const lease = await s.leaseRunOut();
    expect(lease?.runId).toBe(body.runId);
    s.a.kill();
    const again = await send(s.handleB, body);
    expect(again.error).toBeUndefined();
    expect(again.outcome).toBe("cancelled");
    expect(s.modelCalls).toEqual(["tell me a story"]);
    const record = await s.store.load("t");
    expect(record.lease).toBeNull();
    expect(JSON.stringify(record.messages)).not.toContain("a long answer a long answer a long answer");
    // The Stop was this run's: the next turn runs.
    const next = await send(s.handleB, input({ threadId: "t", messages: [...again.messages, ...say("hi").messages] }));
    expect(next.outcome).toBe("success");
  });

  test("a batch: the claimed transfer stays an outcome-unknown question, the one not started never starts", async () => {
    const s = setup();
    const { asked, resume } = await bothApproved(s);
    expect(asked.interrupts).toHaveLength(2);
    startOnA(s, resume);
    while (s.started.length === 0) await sleep(5);
    expect((await s.stop(s.handleA)).status).toBe(202);
    s.a.kill();
    await s.leaseRunOut();
    // Alice's claim ran out too: whether her transfer went through is unknown.
    s.skewLedger(16 * 60_000);
    const again = await send(s.handleB, resume);
    expect(again.error).toBeUndefined();
    expect(s.started).toEqual(["alice"]);
    expect(again.outcome).toBe("interrupt");
    expect(again.interrupts.map((i) => i.id).join()).toContain("outcome_unknown");
    expect(again.interrupts).toHaveLength(1);
    const record = await s.store.load("t");
    expect(record.lease).toBeNull();
    expect(JSON.stringify(record.session)).toContain(STOPPED_BEFORE_RUN);
    // Told it went through: the batch ends as it stood, nothing runs, the model is not asked again.
    const calls = s.modelCalls.length;
    const answer = input({
      threadId: "t",
      messages: again.messages,
      state: again.state,
      resume: [{ interruptId: again.interrupts[0]!.id, status: "resolved", payload: { action: "treat_as_done" } }],
    });
    const done = await send(s.handleB, answer);
    expect(done.error).toBeUndefined();
    expect(s.started).toEqual(["alice"]);
    expect(s.modelCalls).toHaveLength(calls);
    const results = done.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(results).toHaveLength(2);
    expect(results.some((c) => c.includes(STOPPED_BEFORE_RUN))).toBe(true);
    expect(results.some((c) => c.includes("already ran"))).toBe(true);
  });

  test("a batch whose first transfer finished before the process died: its result stands, the other never starts", async () => {
    const s = setup();
    const { resume } = await bothApproved(s);
    startOnA(s, resume);
    while (s.started.length === 0) await sleep(5);
    expect((await s.stop(s.handleA)).status).toBe(202);
    // Alice's transfer returns and is recorded; A stops Bob's, and dies writing the run's end.
    s.gate.resolve();
    await s.a.ending;
    s.a.kill();
    await s.leaseRunOut();
    const calls = s.modelCalls.length;
    const again = await send(s.handleB, resume);
    expect(again.error).toBeUndefined();
    expect(again.outcome).toBe("cancelled");
    expect(s.started).toEqual(["alice"]);
    expect(s.modelCalls).toHaveLength(calls);
    const results = again.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(results).toEqual([expect.stringContaining("sent to alice"), expect.stringContaining(STOPPED_BEFORE_RUN)]);
  });

  test("a Stop sent after the process died, before the run is run again: 202, and the run again ends cancelled", async () => {
    const s = setup();
    const body = say("tell me a story");
    startOnA(s, body);
    while (s.modelCalls.length === 0) await sleep(5);
    s.a.kill();
    await s.leaseRunOut();
    expect((await s.stop(s.handleB)).status).toBe(202);
    expect((await s.stop(s.handleB, "another-run")).status).toBe(409);
    const again = await send(s.handleB, body);
    expect(again.outcome).toBe("cancelled");
    expect(s.modelCalls).toEqual(["tell me a story"]);
    expect((await s.store.load("t")).lease).toBeNull();
  });

  // With a settle of 20 ms: the Stop aborts the run's signal once Bob's transfer returned; the batch is
  // recorded after Bob's result is settled, so the abort always comes first.
  test.each([
    [
      "a Stop while the run again executes its batch: the call cut off with the dead process is never read as cancelled",
      0,
    ],
    [
      "a Stop while the run again executes its batch, on a store whose settle takes a while: the call cut off stays the question",
      20,
    ],
  ] as const)("%s", async (_title, settleMs) => {
    const s = setup({ settleMs });
    const { resume } = await bothApproved(s);
    startOnA(s, resume);
    while (s.started.length === 0) await sleep(5);
    s.a.kill();
    await s.leaseRunOut();
    s.skewLedger(16 * 60_000);
    const releaseBob = s.holdBob();
    const again = send(s.handleB, resume);
    while (s.started.length < 2) await sleep(5);
    expect((await s.stop(s.handleB)).status).toBe(202);
    releaseBob();
    const ended = await again;
    expect(s.started).toEqual(["alice", "bob"]);
    const alice = ended.messages.find((m) => m.role === "tool" && String(m.content).includes("alice"));
    const texts = ended.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    // Alice's transfer may have gone through: it is not said to have been cancelled before it ran.
    expect(texts.some((t) => t.includes("cancelled before this tool ran"))).toBe(false);
    expect(alice === undefined || !String(alice.content).includes("cancelled")).toBe(true);
    expect(JSON.stringify(ended)).toContain("sent to bob");
    // It stays the question whether it went through.
    expect(ended.outcome).toBe("interrupt");
    expect(ended.interrupts.map((i) => i.id).join()).toContain("outcome_unknown");
  });

  test("a Stop of a run that died does not cancel a newer run of the thread", async () => {
    const s = setup();
    const body = say("tell me a story");
    startOnA(s, body);
    while (s.modelCalls.length === 0) await sleep(5);
    expect((await s.stop(s.handleA)).status).toBe(202);
    await s.leaseRunOut();
    s.a.kill();
    const newer = await send(s.handleB, say("hi"));
    expect(newer.error).toBeUndefined();
    expect(newer.outcome).toBe("success");
    expect((await s.store.load("t")).lease).toBeNull();
    // The old run's id names no live run now.
    expect((await s.stop(s.handleB, body.runId)).status).toBe(409);
  });

  test("a Stop sent twice: both 202, one cancelled run, then the same request again stays cancelled", async () => {
    const s = setup();
    const body = say("tell me a story");
    startOnA(s, body);
    while (s.modelCalls.length === 0) await sleep(5);
    const [one, two] = await Promise.all([s.stop(s.handleA), s.stop(s.handleB)]);
    expect([one.status, two.status]).toEqual([202, 202]);
    expect((await s.stop(s.handleA)).status).toBe(202);
    await s.leaseRunOut();
    s.a.kill();
    const again = await send(s.handleB, body);
    expect(again.outcome).toBe("cancelled");
    expect(s.modelCalls).toEqual(["tell me a story"]);
  });

  test("a Stop racing the run's own end: 202 or 409, the thread is left free and the next run is not cancelled", async () => {
    for (const delay of [0, 1, 2, 4, 8]) {
      const s = setup();
      const run = send(s.handleB, say("hi"));
      await sleep(delay);
      const answer = await s.stop(s.handleB);
      expect([202, 409]).toContain(answer.status);
      const ended = await run;
      expect(["success", "cancelled"]).toContain(ended.outcome);
      expect((await s.store.load("t")).lease).toBeNull();
      const next = await send(
        s.handleB,
        input({ threadId: "t", messages: [...ended.messages, ...say("hi").messages] }),
      );
      expect(next.outcome).toBe("success");
    }
  });
});
