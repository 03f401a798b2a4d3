import "fake-indexeddb/auto";
import { createStore, set } from "idb-keyval";
import { describe, expect, test } from "vitest";
import { IndexedDbExecutionLedger } from "../../src/grants/index.js";
import { executionLedgerContract } from "../agent/ledger-contract.js";

const unique = () => `ledger-test-${crypto.randomUUID()}`;

describe("IndexedDbExecutionLedger (fake-indexeddb, no Web Locks)", () => {
  executionLedgerContract((now) => new IndexedDbExecutionLedger({ dbName: unique(), now }));

  test("two instances on one database (two tabs) share claims and results", async () => {
    const dbName = unique();
    const a = new IndexedDbExecutionLedger({ dbName });
    const b = new IndexedDbExecutionLedger({ dbName });
    const outcomes = await Promise.all([a.claim("k"), b.claim("k"), a.claim("k"), b.claim("k")]);
    expect(outcomes.filter((o) => o.status === "claimed")).toHaveLength(1);
    const won = outcomes.find((o) => o.status === "claimed");
    if (won?.status !== "claimed") throw new Error("no claim");
    await a.settle("k", won.token, { status: "success", content: [] });
    expect(await b.claim("k")).toEqual({ status: "done", result: { status: "success", content: [] } });
  });

  test("a corrupt stored record reads as unknown, never as a call that did not run", async () => {
    const dbName = unique();
    const ledger = new IndexedDbExecutionLedger({ dbName });
    await set("k", { state: "done", token: "x", result: { status: "maybe" } }, createStore(dbName, "calls"));
    expect(await ledger.claim("k")).toEqual({ status: "unknown", claimedAt: 0 });
    expect((await ledger.claim("k", { takeOverUnknown: true })).status).toBe("claimed");
  });
});
