import "fake-indexeddb/auto";
import { createStore, entries, set } from "idb-keyval";
import { afterEach, describe, expect, test, vi } from "vitest";
import { IndexedDbAuditLog, IndexedDbGrantStore, grantId } from "../../src/grants/index.js";
import type { CorruptGrant, GrantChange } from "../../src/grants/index.js";
import { grantStoreAuditContract, grantStoreContract } from "../grants/store-contract.js";

const opened: IndexedDbGrantStore[] = [];
function open(options: ConstructorParameters<typeof IndexedDbGrantStore>[0] = {}): IndexedDbGrantStore {
  const store = new IndexedDbGrantStore({ onCorrupt: () => {}, ...options });
  opened.push(store);
  return store;
}
const unique = () => `grants-test-${crypto.randomUUID()}`;
afterEach(() => {
  for (const store of opened.splice(0)) store.close();
});

function nextChange(store: IndexedDbGrantStore): Promise<GrantChange> {
  return new Promise((resolve) => {
    const stop = store.subscribe((change) => {
      if (change.origin === "remote") {
        stop();
        resolve(change);
      }
    });
  });
}

describe("IndexedDbGrantStore (fake-indexeddb)", () => {
  grantStoreContract((now) => open({ dbName: unique(), now }));
  grantStoreAuditContract(
    (audit) => open({ dbName: unique(), audit }),
    () => new IndexedDbAuditLog({ dbName: unique() }),
  );

  test("uses its own database and store, not idb-keyval's default", async () => {
    const dbName = unique();
    await open({ dbName, storeName: "perms" }).grant({ tool: "pay", scope: "always", grantedAt: 1 });
    const rows = await entries(createStore(dbName, "perms"));
    expect(rows).toEqual([[grantId({ tool: "pay", scope: "always" }), { tool: "pay", scope: "always", grantedAt: 1 }]]);
    expect(await entries()).toEqual([]);
  });

  test("corrupt entries are skipped and reported on every read, never returned; revokeAll removes them", async () => {
    const dbName = unique();
    const raw = createStore(dbName, "grants");
    const reports: CorruptGrant[] = [];
    const store = open({ dbName, customStore: raw, onCorrupt: (c) => reports.push(c) });
    const good = await store.grant({ tool: "pay", scope: "always", grantedAt: 1 });
    const moved = { tool: "delete_all", scope: "always", grantedAt: 1 };
    await set("garbage", "not a grant", raw);
    await set(
      grantId({ tool: "x", scope: "thread", threadId: "t1" }),
      { tool: "x", scope: "thread", grantedAt: 1 },
      raw,
    );
    await set(grantId({ tool: "pay", scope: "always", subjectKey: "s" }), moved, raw);
    await set(
      grantId({ tool: "__proto__", scope: "always" }),
      { tool: "__proto__", scope: "always", grantedAt: "yesterday" },
      raw,
    );
    expect(await store.list()).toEqual([good]);
    expect(reports).toHaveLength(4);
    expect(reports.map((r) => r.reason).join("|")).toMatch(/threadId: required/);
    expect(reports.some((r) => r.reason === "stored under a key that is not its id" && r.value !== null)).toBe(true);
    expect(await store.grantsFor("t1")).toEqual([good]);
    expect(reports).toHaveLength(8);
    // Revoking a corrupt entry's id removes it without counting it as a revoked grant.
    expect(await store.revoke("garbage")).toBe(0);
    expect(reports.filter((r) => r.key === "garbage")).toHaveLength(2);
    await store.list();
    expect(reports.filter((r) => r.key === "garbage")).toHaveLength(2);
    await store.revokeAll();
    expect(await entries(raw)).toEqual([]);
  });

  test("a throwing onCorrupt does not break the read", async () => {
    const dbName = unique();
    const store = open({
      dbName,
      onCorrupt: () => {
        throw new Error("bad logger");
      },
    });
    await set("k", 1, createStore(dbName, "grants"));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await store.list()).toEqual([]);
    expect(errors).toHaveBeenCalledOnce();
    errors.mockRestore();
  });

  test("two instances on one database and channel (two tabs) see each other's changes", async () => {
    const dbName = unique();
    const channelName = `chan-${dbName}`;
    const tabA = open({ dbName, channelName });
    const tabB = open({ dbName, channelName });
    const seenByB = nextChange(tabB);
    const g = await tabA.grant({ tool: "pay", scope: "thread", threadId: "t1" });
    expect(await seenByB).toEqual({ type: "grant", ids: [grantId(g)], origin: "remote" });
    expect(await tabB.grantsFor("t1")).toEqual([g]);
    const cleared = nextChange(tabA);
    await tabB.revokeAll();
    expect(await cleared).toEqual({ type: "clear", ids: [], origin: "remote" });
    expect(await tabA.list()).toEqual([]);
  });

  test("malformed channel messages are ignored; channelName null disables broadcasting", async () => {
    const dbName = unique();
    const channelName = `chan-${dbName}`;
    const store = open({ dbName, channelName });
    const seen: GrantChange[] = [];
    store.subscribe((c) => seen.push(c));
    const silent = open({ dbName, channelName: null });
    const rogue = new BroadcastChannel(channelName);
    rogue.postMessage({ kaboo: "grants-changed", v: 2, type: "clear", ids: [] });
    rogue.postMessage({ type: "grant", ids: "x" });
    rogue.postMessage("hello");
    await silent.grant({ tool: "pay", scope: "always" });
    rogue.postMessage({ kaboo: "grants-changed", v: 1, type: "revoke", ids: ["a"] });
    // Wait for the last message rather than a fixed 50 ms (a loaded machine delivers later). One
    // sender's messages arrive in order, so the earlier malformed ones have been seen (and ignored) by then.
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000, interval: 10 });
    rogue.close();
    expect(seen).toEqual([{ type: "revoke", ids: ["a"], origin: "remote" }]);
  });

  test("constructing does not open the database", () => {
    const store = new IndexedDbGrantStore({ dbName: unique(), customStore: undefined as never });
    expect(store).toBeInstanceOf(IndexedDbGrantStore);
  });
});
