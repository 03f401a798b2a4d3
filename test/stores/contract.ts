/**
 * The ThreadStore contract, as plain checks with no test framework, so the same checks run in
 * Node (memory), in workerd (Durable Objects) and in Deno (Deno KV). Each check gets fresh thread
 * ids; the result lists every check with its failure, if any.
 */
import { abandonedResult } from "../../src/agent/ledger/outcome-answer.js";
import type { ThreadData, ThreadStore } from "../../src/stores/thread-store.js";

/** One check's result. */
export interface ContractResult {
  name: string;
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Throws `message` unless `condition` holds (the contracts run with no test framework). */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/**
 * Runs every check, in order, past any failure.
 * @param checks - The checks by name.
 * @param run - Runs one check with what it needs (its store, fresh ids).
 * @param stack - Report a failure's stack rather than its message.
 * @returns One result per check, `error` set when it failed.
 */
export async function runChecks<C>(
  checks: Record<string, C>,
  run: (check: C) => Promise<void>,
  stack = false,
): Promise<ContractResult[]> {
  const out: ContractResult[] = [];
  for (const [name, check] of Object.entries(checks)) {
    try {
      await run(check);
      out.push({ name });
    } catch (error) {
      const message = error instanceof Error ? (stack ? (error.stack ?? error.message) : error.message) : String(error);
      out.push({ name, error: message });
    }
  }
  return out;
}

function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  assert(a === e, `${what}: expected ${e}, got ${a}`);
}

/** Thread data with a marker, for checks that write. */
export function data(marker: string, over: Partial<ThreadData> = {}): ThreadData {
  return {
    owner: null,
    session: { marker },
    messages: [{ id: marker, role: "user", content: marker }],
    state: { marker },
    answered: {},
    lease: null,
    updatedAt: 1,
    ...over,
  };
}

const result = (text: string) => ({ status: "success" as const, content: [{ type: "text" as const, text }] });

const CHECKS: Record<string, (store: ThreadStore, id: () => string) => Promise<void>> = {
  async "an unknown thread loads empty at version 0"(store, id) {
    const r = await store.load(id());
    same([r.version, r.session, r.messages, r.answered, r.lease], [0, null, [], {}, null], "empty record");
  },
  async "compare-and-set writes only over the expected version"(store, id) {
    const t = id();
    assert(await store.compareAndSet(t, 0, data("a")), "first write refused");
    assert(!(await store.compareAndSet(t, 0, data("b"))), "a second write over version 0 was accepted");
    assert(!(await store.compareAndSet(t, 5, data("b"))), "a write over a version that is not stored was accepted");
    const r1 = await store.load(t);
    same([r1.version, r1.session], [1, { marker: "a" }], "after one write");
    assert(
      await store.compareAndSet(
        t,
        1,
        data("c", { owner: "ann", answered: { i: { runId: "r", outcome: { type: "success" }, at: 2 } } }),
      ),
      "write over 1 refused",
    );
    const r2 = await store.load(t);
    same(
      [r2.version, r2.session, r2.owner, r2.answered],
      [2, { marker: "c" }, "ann", { i: { runId: "r", outcome: { type: "success" }, at: 2 } }],
      "after two writes",
    );
  },
  async "of two concurrent writes over one version exactly one wins"(store, id) {
    const t = id();
    await store.compareAndSet(t, 0, data("base"));
    const wins = await Promise.all(["x", "y", "z", "w"].map((m) => store.compareAndSet(t, 1, data(m))));
    same(wins.filter(Boolean).length, 1, "winners");
    const r = await store.load(t);
    same(r.version, 2, "version after the race");
    same(r.session, { marker: ["x", "y", "z", "w"][wins.indexOf(true)] }, "the winner's data");
  },
  async "threads do not see each other"(store, id) {
    const [a, b] = [id(), id()];
    await Promise.all([store.compareAndSet(a, 0, data("for-a")), store.compareAndSet(b, 0, data("for-b"))]);
    same((await store.load(a)).session, { marker: "for-a" }, "thread a");
    same((await store.load(b)).session, { marker: "for-b" }, "thread b");
    const claimed = await store.ledger(a).claim("call");
    same(claimed.status, "claimed", "claim in a");
    same((await store.ledger(b).claim("call")).status, "claimed", "the same key in b");
  },
  async "a record larger than 64 KiB round trips"(store, id) {
    const t = id();
    const big = "é".repeat(120_000);
    assert(await store.compareAndSet(t, 0, data(big)), "big write refused");
    same((await store.load(t)).session, { marker: big }, "big record");
    assert(await store.compareAndSet(t, 1, data("small")), "write after big refused");
    same((await store.load(t)).session, { marker: "small" }, "small record after a big one");
  },
  async "a claim is claimed once, running while held, done once settled"(store, id) {
    const ledger = store.ledger(id());
    const first = await ledger.claim("k");
    assert(first.status === "claimed", `first claim: ${first.status}`);
    same((await ledger.claim("k")).status, "running", "second claim while held");
    await ledger.settle("k", first.token, result("paid"));
    const after = await ledger.claim("k");
    same(after, { status: "done", result: result("paid") }, "claim after settle");
    await ledger.settle("k", "not-the-token", result("forged"));
    same(
      await ledger.claim("k"),
      { status: "done", result: result("paid") },
      "a settle by another token changes nothing",
    );
    await ledger.settle("k", first.token, result("again"));
    same(
      await ledger.claim("k"),
      { status: "done", result: result("again") },
      "the holder's second settle replaces the result",
    );
  },
  async "of concurrent claims of one call exactly one is claimed"(store, id) {
    const ledger = store.ledger(id());
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => ledger.claim("race")));
    same(outcomes.filter((o) => o.status === "claimed").length, 1, "claimed");
    same(outcomes.filter((o) => o.status === "running").length, 5, "running");
  },
  async "release drops only the holder's unsettled claim"(store, id) {
    const ledger = store.ledger(id());
    const first = await ledger.claim("k");
    assert(first.status === "claimed", "claim");
    await ledger.release("k", "not-the-token");
    same((await ledger.claim("k")).status, "running", "after a release with another token");
    await ledger.release("k", first.token);
    const again = await ledger.claim("k");
    same(again.status, "claimed", "after the holder released");
  },
  async "an expired claim is unknown until taken over; a settled one never is"(store, id) {
    const ledger = store.ledger(id());
    const first = await ledger.claim("k", { leaseMs: 1 });
    assert(first.status === "claimed", "claim");
    await sleep(15);
    const unknown = await ledger.claim("k");
    assert(unknown.status === "unknown", `after the lease: ${unknown.status}`);
    const taken = await ledger.claim("k", { takeOverUnknown: true });
    same(taken.status, "claimed", "take over");
    same((await ledger.claim("k", { takeOverUnknown: true })).status, "running", "a live claim is not taken over");
    if (taken.status === "claimed") await ledger.settle("k", taken.token, result("ok"));
    same((await ledger.claim("k", { takeOverUnknown: true })).status, "done", "a settled call is not taken over");
  },
  async "run again, a call abandoned under a token is taken over with a new one; a late result settles nothing over it"(
    store,
    id,
  ) {
    const ledger = store.ledger(id());
    const first = await ledger.claim("k");
    assert(first.status === "claimed", "claim");
    await ledger.settle("k", first.token, abandonedResult({ token: first.token, at: 1 }, "let go"));
    same((await ledger.claim("k", { takeOverAbandoned: "another" })).status, "done", "another claim's marker");
    const again = await ledger.claim("k", { takeOverAbandoned: first.token });
    assert(again.status === "claimed", `take over: ${again.status}`);
    assert(again.token !== first.token, "a token of its own");
    await ledger.settle("k", first.token, result("late"));
    await ledger.settle("k", again.token, result("again"));
    await ledger.settle("k", first.token, result("later still"));
    same(await ledger.claim("k"), { status: "done", result: result("again") }, "the run again's result");
    same((await ledger.claim("k", { takeOverAbandoned: first.token })).status, "done", "a real result is kept");
  },
  async "a result larger than 64 KiB is recorded whole"(store, id) {
    const ledger = store.ledger(id());
    const c = await ledger.claim("big");
    assert(c.status === "claimed", "claim");
    const text = "x".repeat(100_000);
    await ledger.settle("big", c.token, result(text));
    same(await ledger.claim("big"), { status: "done", result: result(text) }, "big result");
  },
  async "the event log gives back a run's events after an index, batch by batch, and compacts ended runs"(store, id) {
    const t = id();
    assert(store.appendEvents && store.readEvents && store.compactEvents, "the store has no event log");
    same(await store.readEvents(t, "r1", -1), undefined, "an unlogged run");
    const big = "x".repeat(70_000);
    await store.appendEvents(t, "r1", 0, [{ n: 0 }, { n: 1 }], false);
    await store.appendEvents(t, "r1", 2, [{ n: 2, big }], false);
    // The same batch again (a retried write), and a batch out of order, change nothing.
    await store.appendEvents(t, "r1", 2, [{ n: 2, big }], false);
    await store.appendEvents(t, "r1", 9, [{ n: 9 }], false);
    same(await store.readEvents(t, "r1", 0), { events: [{ n: 1 }, { n: 2, big }], ended: false }, "after index 0");
    await store.appendEvents(t, "r1", 3, [{ n: 3 }], true);
    await store.appendEvents(t, "r1", 4, [{ n: 4 }], false);
    same(await store.readEvents(t, "r1", 2), { events: [{ n: 3 }], ended: true }, "an ended run");
    await store.appendEvents(t, "r2", 0, [{ n: 0 }], false);
    await store.compactEvents(t, Date.now() + 1_000);
    same(await store.readEvents(t, "r1", -1), undefined, "an ended run after compaction");
    same(await store.readEvents(t, "r2", -1), { events: [{ n: 0 }], ended: false }, "a live run after compaction");
  },
};

/**
 * Runs every contract check against `store`.
 *
 * @param store - The store under test (shared by the checks; each uses fresh thread ids).
 * @returns One result per check, `error` set when it failed.
 */
export function runStoreContract(store: ThreadStore): Promise<ContractResult[]> {
  const id = () => `t-${crypto.randomUUID()}`;
  return runChecks(CHECKS, (check) => check(store, id), true);
}

/** The names of the contract's checks. */
export const CONTRACT_CHECKS: readonly string[] = Object.keys(CHECKS);
