/**
 * DenoKvThreadStore waits out a locked database ("database is locked": another process writes the
 * same local file) with bounded backoff; past the bound it ends the request with STORE_BUSY
 * (retryable), and the thread is not left held. The two-process proof runs in Deno
 * (test/runtimes/stores.test.ts); these run the same store over an in-memory KV in Node.
 */
import { describe, expect, test } from "vitest";
import { DenoKvThreadStore, StoreBusyError } from "../../src/stores/deno-kv.js";
import { bankHandler, newBank, pause, resumeBody, send } from "../agui/edge/fixtures.js";
import { executionLedgerContract } from "../agent/ledger-contract.js";
import { CONTRACT_CHECKS, runStoreContract } from "./contract.js";
import { fakeKv } from "./fake-kv.js";

describe("DenoKvThreadStore over an in-memory KV", () => {
  test("passes the store contract", async () => {
    const results = await runStoreContract(new DenoKvThreadStore(fakeKv()));
    expect(results.map((r) => r.name)).toEqual(CONTRACT_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });
  executionLedgerContract((now) => new DenoKvThreadStore(fakeKv(), { now }).ledger("t"));
});

describe("a locked database", () => {
  test("a lock that lifts is waited out: every operation succeeds", async () => {
    const kv = fakeKv();
    let left = 40;
    kv.locked = () => left-- > 0 && left % 2 === 0;
    const store = new DenoKvThreadStore(kv);
    expect(await store.compareAndSet("t", 0, { ...(await store.load("t")), updatedAt: 1 })).toBe(true);
    expect(await store.ledger("t").claim("k")).toMatchObject({ status: "claimed" });
    expect((await store.load("t")).version).toBe(1);
    expect(kv.lockedCount).toBeGreaterThan(5);
  });

  test("a lock that does not lift ends with STORE_BUSY, retryable, after the bound", async () => {
    const kv = fakeKv();
    kv.locked = () => true;
    const store = new DenoKvThreadStore(kv, { busyTimeoutMs: 100 });
    const t = Date.now();
    const error = await store.load("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreBusyError);
    expect(error).toMatchObject({ code: "STORE_BUSY", retryable: true });
    expect(Date.now() - t).toBeGreaterThanOrEqual(90);
    expect(Date.now() - t).toBeLessThan(2_000);
    expect(kv.lockedCount).toBeGreaterThan(3);
  });

  test("through the handler: a resume that meets a lasting lock ends STORE_BUSY; sent again, it runs the call once", async () => {
    const kv = fakeKv();
    const bank = newBank();
    const handle = bankHandler(bank, {
      stores: { thread: new DenoKvThreadStore(kv, { busyTimeoutMs: 50 }) },
      trust: { secret: "s" },
    });
    const { turn } = await pause(handle, "t-busy", "pay bob 5");
    kv.locked = () => true;
    const busy = await send(handle, resumeBody("t-busy", turn, { approved: true }));
    expect(busy.error).toMatchObject({ code: "STORE_BUSY" });
    expect(bank.transfers).toEqual([]);
    kv.locked = () => false;
    const again = await send(handle, resumeBody("t-busy", turn, { approved: true }));
    expect(again.error).toBeUndefined();
    expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
  });

  test("a lasting lock on the ledger alone: the run ends STORE_BUSY, the thread is released, and a retry runs the call once", async () => {
    const kv = fakeKv();
    const bank = newBank();
    const handle = bankHandler(bank, {
      stores: { thread: new DenoKvThreadStore(kv, { busyTimeoutMs: 50 }) },
      trust: { secret: "s" },
    });
    const { turn } = await pause(handle, "t-ledger", "pay bob 5");
    kv.locked = (op, key) => op === "commit" && key[1] === "ledger";
    const busy = await send(handle, resumeBody("t-ledger", turn, { approved: true }));
    expect(busy.error).toMatchObject({ code: "STORE_BUSY" });
    expect(bank.transfers).toEqual([]);
    kv.locked = () => false;
    const again = await send(handle, resumeBody("t-ledger", turn, { approved: true }));
    expect(again.error).toBeUndefined();
    expect(bank.transfers).toEqual([{ to: "bob", amount: 5 }]);
  });
});
