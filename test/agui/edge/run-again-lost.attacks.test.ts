/**
 * "Run it again" at the edge is about one lost claim. A resume approves a transfer; its process dies
 * mid-call (the claim is written, the result never is; its hold runs out). The same resume sent
 * again to another process asks whether the transfer went through (`outcome_unknown`), and the
 * person answers "run it again". That run again moves the money and its process dies too, before
 * the result is settled. The answering request is the one the thread keeps and runs again (sent
 * again by the client after the hold ran out, as a Durable Object's alarm or another process does):
 * its answer was about the first lost claim, not this one. The run again must ask a new question
 * (another id) and move nothing; told "it went through", the run ends. The bank's own record counts
 * every transfer that really moved: never more than the person asked for.
 */
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { ThreadStore } from "../../../src/stores/thread-store.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { input } from "../helpers.js";
import { post, quietLogger, send, type Turn } from "./fixtures.js";

const LEASE_MS = 200;
const CLAIM_RUNS_OUT_MS = 16 * 60_000;
const never = () => new Promise<never>(() => {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One process's view of the shared store; once killed nothing it asks of the store ever lands. */
function processOn(store: MemoryThreadStore): ThreadStore & { kill(): void } {
  let dead = false;
  const alive = <T>(f: () => Promise<T>): Promise<T> => (dead ? never() : f());
  return {
    kill: () => {
      dead = true;
    },
    load: (t) => alive(() => store.load(t)),
    compareAndSet: (t, v, d) => alive(() => store.compareAndSet(t, v, d)),
    appendEvents: (t, r, from, events, ended, writer) =>
      alive(() => store.appendEvents(t, r, from, events, ended, writer)),
    readEvents: (t, r, after) => alive(() => store.readEvents(t, r, after)),
    ledger: (t) => {
      const ledger = store.ledger(t);
      return {
        claim: (k, o) => alive(() => ledger.claim(k, o)),
        settle: (k, tok, r) => alive(() => ledger.settle(k, tok, r)),
        release: (k, tok) => alive(() => ledger.release(k, tok)),
      };
    },
  };
}

/** How a dying process's transfer dies: after the money moved, or before. */
type Death = "after moving" | "before moving";

function setup() {
  /** The bank's own record: every transfer that really moved money (bank.transfers). */
  const bank = newBank();
  let skew = 0;
  const store = new MemoryThreadStore({ now: () => Date.now() + skew });
  const agent = (death: Death | undefined, own: { kill(): void }) => () =>
    bankAgent(bank, {
      done: "Done.",
      otherwise: "ok",
      beforeMoving: async () => {
        if (death === "before moving") {
          own.kill();
          await never();
        }
      },
      onSent: async () => {
        if (death === "after moving") {
          // The process dies with the money sent: its result is never settled, its hold never renewed.
          own.kill();
          await never();
        }
      },
      gate: { remember: false, agentName: "" },
    });
  /** A new process on the store; with `death`, its transfer kills it. */
  const spawn = (death?: Death) => {
    const own = processOn(store);
    const handle = createAguiHandler({
      stores: { thread: own },
      agent: agent(death, own),
      logger: quietLogger(),
      trust: { principal: (r) => r.headers.get("x-user") ?? "ann" },
      timing: { runLeaseMs: LEASE_MS },
    });
    return { handle, own };
  };
  /** Sends `body` to a process whose transfer kills it, and waits until the thread's hold ran out. */
  const dieMidCall = async (body: unknown, death: Death) => {
    const p = spawn(death);
    void p.handle(post(body)).then((r) => r.body?.cancel());
    for (;;) {
      const { lease } = await store.load("t");
      if (lease !== null && lease.expiresAt < Date.now() && lease.runId === (body as { runId: string }).runId) break;
      await sleep(20);
    }
  };
  return {
    moved: bank.transfers,
    store,
    spawn,
    dieMidCall,
    /** The claims made so far run out (their 15-minute lease). */
    claimsRunOut: () => {
      skew += CLAIM_RUNS_OUT_MS;
    },
  };
}

const answer = (turn: Turn, id: string, payload: unknown) =>
  input({
    threadId: "t",
    messages: turn.messages,
    state: turn.state,
    resume: [{ interruptId: id, status: "resolved", payload }],
  });

/** The one outcome question `turn` ended on. */
function question(turn: Turn): string {
  expect(turn.error).toBeUndefined();
  expect(turn.outcome).toBe("interrupt");
  expect(turn.interrupts).toHaveLength(1);
  const id = turn.interrupts[0]?.id ?? "";
  expect(id).toContain("outcome_unknown");
  return id;
}

describe("a run again of a 'run it again' whose process died mid-call too", () => {
  for (const first of ["after moving", "before moving"] as const)
    test(`the first attempt dies ${first}: asked again (a new question), the money never moves a third time`, async () => {
      const s = setup();
      const b = s.spawn();
      const asked = await send(
        b.handle,
        input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "pay bob 5" }] }),
      );
      expect(asked.outcome).toBe("interrupt");
      const approve = answer(asked, asked.interrupts[0]?.id ?? "", { approved: true });
      // The approved transfer's process dies mid-call; the same resume sent again asks whether it went through.
      await s.dieMidCall(approve, first);
      const movedFirst = first === "after moving" ? 1 : 0;
      expect(s.moved).toHaveLength(movedFirst);
      s.claimsRunOut();
      const unknown = await send(s.spawn().handle, approve);
      const q1 = question(unknown);
      expect(s.moved).toHaveLength(movedFirst);
      // "Run it again": it moves the money, and its process dies before the result is settled.
      const runAgain = answer(unknown, q1, { action: "run_again" });
      await s.dieMidCall(runAgain, "after moving");
      expect(s.moved).toHaveLength(movedFirst + 1);
      s.claimsRunOut();
      // The kept answering request, run again: its answer was about the first lost claim, not this one.
      const again = await send(s.spawn().handle, runAgain);
      const q2 = question(again);
      expect(s.moved).toHaveLength(movedFirst + 1);
      expect(q2).not.toBe(q1);
      expect(q2.split(":")[1]).toBe(q1.split(":")[1]);
      // The same request once more: the question stands, nothing moves.
      expect(question(await send(s.spawn().handle, runAgain))).toBe(q2);
      expect(s.moved).toHaveLength(movedFirst + 1);
      expect((await s.store.load("t")).lease).toBeNull();
      // Told it went through: the run ends, nothing moves again.
      const done = await send(s.spawn().handle, answer(again, q2, { action: "treat_as_done" }));
      expect(done.error).toBeUndefined();
      expect(done.outcome).toBe("success");
      expect(s.moved).toEqual(Array.from({ length: movedFirst + 1 }, () => ({ to: "bob", amount: 5 })));
      const results = done.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
      expect(results).toEqual([expect.stringContaining("already ran")]);
      // Both answers stand: sent again, each replays its recorded outcome and nothing moves.
      expect(question(await send(s.spawn().handle, runAgain))).toBe(q2);
      expect((await send(s.spawn().handle, answer(again, q2, { action: "run_again" }))).outcome).toBe("success");
      expect(s.moved).toHaveLength(movedFirst + 1);
    });

  test("the new question: another person's answer moves nothing; the owner's 'run it again' sent twice at once moves it once", async () => {
    const s = setup();
    const asked = await send(
      s.spawn().handle,
      input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "pay bob 5" }] }),
    );
    const approve = answer(asked, asked.interrupts[0]?.id ?? "", { approved: true });
    await s.dieMidCall(approve, "before moving");
    s.claimsRunOut();
    const unknown = await send(s.spawn().handle, approve);
    const runAgain = answer(unknown, question(unknown), { action: "run_again" });
    await s.dieMidCall(runAgain, "after moving");
    s.claimsRunOut();
    const again = await send(s.spawn().handle, runAgain);
    const q2 = question(again);
    expect(s.moved).toHaveLength(1);
    // Another person answers the new question: refused, nothing moves, the question stands.
    const theirs = await s.spawn().handle(post(answer(again, q2, { action: "run_again" }), { "x-user": "mallory" }));
    expect(await theirs.text()).toContain('"code":"THREAD_FORBIDDEN"');
    expect(s.moved).toHaveLength(1);
    expect(question(await send(s.spawn().handle, runAgain))).toBe(q2);
    // The owner's "run it again", sent to two processes at once: one runs it, the other runs nothing.
    const mine = answer(again, q2, { action: "run_again" });
    const both = await Promise.all([
      s
        .spawn()
        .handle(post(mine))
        .then((r) => r.text()),
      s
        .spawn()
        .handle(post(mine))
        .then((r) => r.text()),
    ]);
    expect(both.some((text) => text.includes("RUN_FINISHED"))).toBe(true);
    expect(s.moved).toHaveLength(2);
    expect((await send(s.spawn().handle, mine)).outcome).toBe("success");
    expect(s.moved).toEqual([
      { to: "bob", amount: 5 },
      { to: "bob", amount: 5 },
    ]);
  });
});
