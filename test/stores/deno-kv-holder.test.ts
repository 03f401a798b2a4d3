/**
 * Claims in a Deno KV thread ledger name the run that made them: a claim without a result made by
 * the run whose lease the claiming run took over reads `unknown` at once (and is written so for every
 * later claim), while a live claim of any other run, or made outside a run, reads `running`. A run
 * that lost the thread claims nothing more; a call it was executing still records its result.
 */
import { describe, expect, test } from "vitest";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import type { LedgerHolder } from "../../src/stores/thread-store.js";
import { fakeKv } from "./fake-kv.js";

/** Writes `token`'s lease on thread "t" (compare-and-set, as a run takes its thread) and gives its ledger. */
async function take(store: DenoKvThreadStore, token: string | null, tookOver?: string) {
  const record = await store.load("t");
  const lease = token === null ? null : { token, runId: `run-${token}`, resume: true, expiresAt: Date.now() + 600 };
  expect(await store.compareAndSet("t", record.version, { ...record, lease, updatedAt: Date.now() })).toBe(true);
  const holder: LedgerHolder = { token: token ?? "", ...(tookOver ? { tookOver } : {}) };
  return store.ledger("t", holder);
}

describe("Deno KV ledger: claims of a run that was taken over", () => {
  test("the dead run's claim reads unknown at once; another live claim reads running; the dead run claims nothing more", async () => {
    const store = new DenoKvThreadStore(fakeKv());
    const a = await take(store, "lease-a");
    expect((await a.claim("call-1")).status).toBe("claimed");
    expect((await store.ledger("t").claim("call-3")).status).toBe("claimed");
    const c = await take(store, "lease-c", "lease-a");
    expect((await c.claim("call-1")).status).toBe("unknown");
    expect((await c.claim("call-3")).status).toBe("running");
    // The run that lost the thread: refused, and the call stays free for the run that holds the thread.
    expect((await a.claim("call-2")).status).toBe("running");
    expect((await c.claim("call-2")).status).toBe("claimed");
    // Written cut off: a later run that took over no one reads it unknown too, and may take it over.
    await take(store, null);
    const d = await take(store, "lease-d");
    expect((await d.claim("call-1")).status).toBe("unknown");
    expect((await d.claim("call-1", { takeOverUnknown: true })).status).toBe("claimed");
    // A claim made outside any run is never refused for not holding the thread.
    expect((await store.ledger("t").claim("call-4")).status).toBe("claimed");
  });

  test("the dead run's late result is recorded (its claim token still holds the call), and replayed", async () => {
    const store = new DenoKvThreadStore(fakeKv());
    const a = await take(store, "lease-a");
    const claimed = await a.claim("call-1");
    if (claimed.status !== "claimed") throw new Error(claimed.status);
    const b = await take(store, "lease-b", "lease-a");
    expect((await b.claim("call-1")).status).toBe("unknown");
    const result = { status: "success" as const, content: [{ type: "text" as const, text: "sent 5 to alice" }] };
    await a.settle("call-1", claimed.token, result);
    expect(await b.claim("call-1", { takeOverUnknown: true })).toEqual({ status: "done", result });
  });
});
