/**
 * MemoryThreadStore against the store contract (the same checks run in workerd for the Durable
 * Object store and in Deno for the Deno KV store, see test/runtimes/stores.test.ts).
 */
import { describe, expect, test } from "vitest";
import { MemoryThreadStore } from "../../src/stores/memory.js";
import { InvalidThreadRecordError, decodeThread, encodeThread } from "../../src/stores/thread-store.js";
import { executionLedgerContract } from "../agent/ledger-contract.js";
import { CONTRACT_CHECKS, data, runStoreContract } from "./contract.js";

describe("MemoryThreadStore: the store contract", () => {
  const results = runStoreContract(new MemoryThreadStore());
  test.each(CONTRACT_CHECKS.map((name) => [name]))("%s", async (name) => {
    const r = (await results).find((x) => x.name === name);
    expect(r?.error).toBeUndefined();
  });

  test("a loaded record is a copy: changing it changes nothing stored", async () => {
    const store = new MemoryThreadStore();
    await store.compareAndSet("t", 0, data("a"));
    const r = await store.load("t");
    (r.session as Record<string, unknown>).marker = "changed";
    expect((await store.load("t")).session).toEqual({ marker: "a" });
  });
});

describe("MemoryThreadStore: a thread's ledger is an ExecutionLedger", () => {
  executionLedgerContract((now) => new MemoryThreadStore({ now }).ledger("t"));
});

describe("the stored format", () => {
  test("round trips and names its format", () => {
    const text = encodeThread(3, data("x"));
    expect(JSON.parse(text).format).toBe(1);
    expect(decodeThread(text)).toMatchObject({ version: 3, session: { marker: "x" } });
  });

  test.each([
    ["not JSON", "{"],
    ["another format", JSON.stringify({ ...JSON.parse(encodeThread(1, data("x"))), format: 2 })],
    ["a missing field", JSON.stringify({ format: 1, version: 1 })],
  ])("refuses %s with a typed error", (_, text) => {
    expect(() => decodeThread(text)).toThrow(InvalidThreadRecordError);
  });
});
