/**
 * Claims that name the run that made them (see `LedgerHolder`), as plain checks with no test framework, so the
 * same checks run on Deno KV (Node with a fake KV) and on Durable Objects (workerd): a claim without a result made
 * by the run whose lease the claiming run took over reads `unknown` at once (and is written so for every later
 * claim), while a live claim of any other run, or made outside a run, reads `running`. A run that lost the thread
 * claims nothing more; a call it was executing still records its result.
 */
import type { LedgerHolder, ThreadStore } from "../../src/stores/thread-store.js";
import { runChecks, type ContractResult } from "./contract.js";

function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/** Writes `token`'s lease on the thread (compare-and-set, as a run takes its thread) and gives its ledger. */
async function take(store: ThreadStore, thread: string, token: string | null, tookOver?: string) {
  const record = await store.load(thread);
  const lease = token === null ? null : { token, runId: `run-${token}`, resume: true, expiresAt: Date.now() + 600 };
  same(await store.compareAndSet(thread, record.version, { ...record, lease, updatedAt: Date.now() }), true, "take");
  const holder: LedgerHolder = { token: token ?? "", ...(tookOver ? { tookOver } : {}) };
  return store.ledger(thread, holder);
}

const status = async (claim: Promise<{ status: string }>) => (await claim).status;

const CHECKS: Record<string, (store: ThreadStore, thread: string) => Promise<void>> = {
  async "the dead run's claim reads unknown at once; another live claim reads running; the dead run claims nothing more"(
    store,
    t,
  ) {
    const a = await take(store, t, "lease-a");
    same(await status(a.claim("call-1")), "claimed", "a claims call-1");
    same(await status(store.ledger(t).claim("call-3")), "claimed", "a claim outside a run");
    const c = await take(store, t, "lease-c", "lease-a");
    same(await status(c.claim("call-1")), "unknown", "c reads a's open claim");
    same(await status(c.claim("call-3")), "running", "c reads the outside claim");
    // The run that lost the thread: refused, and the call stays free for the run that holds the thread.
    same(await status(a.claim("call-2")), "running", "a, which lost the thread");
    same(await status(c.claim("call-2")), "claimed", "c claims call-2");
    // Written cut off: a later run that took over no one reads it unknown too, and may take it over.
    await take(store, t, null);
    const d = await take(store, t, "lease-d");
    same(await status(d.claim("call-1")), "unknown", "d reads the cut-off claim");
    same(await status(d.claim("call-1", { takeOverUnknown: true })), "claimed", "d takes it over");
    // A claim made outside any run is never refused for not holding the thread.
    same(await status(store.ledger(t).claim("call-4")), "claimed", "another claim outside a run");
  },

  async "the dead run's late result is recorded (its claim token still holds the call), and replayed"(store, t) {
    const a = await take(store, t, "lease-a");
    const claimed = await a.claim("call-1");
    if (claimed.status !== "claimed") throw new Error(claimed.status);
    const b = await take(store, t, "lease-b", "lease-a");
    same(await status(b.claim("call-1")), "unknown", "b reads a's open claim");
    const result = { status: "success" as const, content: [{ type: "text" as const, text: "sent 5 to alice" }] };
    await a.settle("call-1", claimed.token, result);
    same(await b.claim("call-1", { takeOverUnknown: true }), { status: "done", result }, "b replays a's result");
  },
};

/**
 * Runs every holder check on fresh threads of `store`.
 * @returns Each check with its failure, if any.
 */
export function runHolderContract(store: ThreadStore): Promise<ContractResult[]> {
  return runChecks(CHECKS, (check) => check(store, `h-${crypto.randomUUID()}`), true);
}

/** The names of the holder checks. */
export const HOLDER_CHECKS: readonly string[] = Object.keys(CHECKS);
