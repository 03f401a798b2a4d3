/**
 * Claims in a Deno KV thread ledger name the run that made them (test/stores/holder-contract.ts; the same
 * checks run on Durable Objects in test/runtimes/stores.test.ts).
 */
import { expect, test } from "vitest";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { fakeKv } from "./fake-kv.js";
import { HOLDER_CHECKS, runHolderContract } from "./holder-contract.js";

test("Deno KV ledger: claims of a run that was taken over", async () => {
  const results = await runHolderContract(new DenoKvThreadStore(fakeKv()));
  expect(results.map((r) => r.name)).toEqual(HOLDER_CHECKS);
  expect(results.filter((r) => r.error)).toEqual([]);
});
