/** IndexedDbGrantStore in real Chromium: real IndexedDB, real BroadcastChannel, and a second page (iframe). */
import { createStore, entries, set } from "idb-keyval";
import { afterEach, describe, expect, test } from "vitest";
import { IndexedDbAuditLog, IndexedDbGrantStore, grantId } from "../../src/grants/index.js";
import type { CorruptGrant, GrantChange, GrantStore } from "../../src/grants/index.js";
import { grantStoreAuditContract, grantStoreContract } from "../grants/store-contract.js";

const opened: IndexedDbGrantStore[] = [];
function open(options: ConstructorParameters<typeof IndexedDbGrantStore>[0] = {}): IndexedDbGrantStore {
  const store = new IndexedDbGrantStore({ onCorrupt: () => {}, ...options });
  opened.push(store);
  return store;
}
const unique = () => `grants-browser-${crypto.randomUUID()}`;
const frames: HTMLIFrameElement[] = [];
afterEach(() => {
  for (const store of opened.splice(0)) store.close();
  for (const frame of frames.splice(0)) frame.remove();
});

function nextRemote(store: GrantStore): Promise<GrantChange> {
  return new Promise((resolve) => {
    const stop = store.subscribe((change) => {
      if (change.origin !== "remote") return;
      stop();
      resolve(change);
    });
  });
}

type FrameWindow = Window & { kabooStore?: IndexedDbGrantStore };

/** A second same-origin document with its own globals (its own IndexedDB connection and BroadcastChannel). */
async function storeInFrame(dbName: string, channelName: string): Promise<IndexedDbGrantStore> {
  const frame = document.createElement("iframe");
  const moduleUrl = new URL("/src/grants/index.ts", location.origin).href;
  frame.srcdoc = `<script type="module">
    import { IndexedDbGrantStore } from ${JSON.stringify(moduleUrl)};
    window.kabooStore = new IndexedDbGrantStore({ dbName: ${JSON.stringify(dbName)}, channelName: ${JSON.stringify(channelName)} });
  </script>`;
  document.body.append(frame);
  frames.push(frame);
  for (let i = 0; i < 200; i++) {
    const store = (frame.contentWindow as FrameWindow | null)?.kabooStore;
    if (store) return store;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the iframe did not load the grant store");
}

describe("IndexedDbGrantStore in Chromium", () => {
  grantStoreContract((now) => open({ dbName: unique(), now }));
  grantStoreAuditContract(
    (audit) => open({ dbName: unique(), audit }),
    () => new IndexedDbAuditLog({ dbName: unique() }),
  );

  test("runs in a real browser with real IndexedDB", () => {
    expect(navigator.userAgent).toMatch(/Chrome/);
    expect(indexedDB.constructor.name).toBe("IDBFactory");
  });

  test("grant/list/revoke round trip survives a new store instance (a reload)", async () => {
    const dbName = unique();
    const first = open({ dbName });
    const g = await first.grant({
      tool: "pay",
      subjectKey: "acct:1",
      subjectLabel: "Account 1",
      scope: "always",
      grantedAt: 3,
    });
    first.close();
    const second = open({ dbName });
    expect(await second.list()).toEqual([g]);
    expect(await second.revoke({ tool: "pay", subjectKey: "acct:1", scope: "always" })).toBe(1);
    expect(await open({ dbName }).list()).toEqual([]);
  });

  test("a corrupt entry written raw is skipped and reported, never returned", async () => {
    const dbName = unique();
    const reports: CorruptGrant[] = [];
    const store = open({ dbName, onCorrupt: (c) => reports.push(c) });
    const good = await store.grant({ tool: "pay", scope: "thread", threadId: "t1", grantedAt: 1 });
    const raw = createStore(dbName, "grants");
    await set(
      grantId({ tool: "delete_all", scope: "always" }),
      { tool: "delete_all", scope: "forever", grantedAt: 1 },
      raw,
    );
    await set("constructor", { tool: "constructor", scope: "always", grantedAt: 1 }, raw);
    await set(grantId({ tool: "x", scope: "always" }), { tool: "x", scope: "always", grantedAt: new Date(0) }, raw);
    expect(await store.grantsFor("t1")).toEqual([good]);
    expect(reports.map((r) => r.key).sort()).toEqual(
      [grantId({ tool: "delete_all", scope: "always" }), "constructor", grantId({ tool: "x", scope: "always" })].sort(),
    );
    expect(reports.find((r) => r.key === "constructor")?.reason).toBe("stored under a key that is not its id");
    expect((await entries(raw)).length).toBe(4);
  });

  test("two store instances on one database and channel see each other's grants and revokeAll", async () => {
    const dbName = unique();
    const channelName = `chan-${dbName}`;
    const tabA = open({ dbName, channelName });
    const tabB = open({ dbName, channelName });
    const seen = nextRemote(tabB);
    const g = await tabA.grant({ tool: "pay", scope: "always", grantedAt: 1 });
    expect(await seen).toEqual({ type: "grant", ids: [grantId(g)], origin: "remote" });
    expect(await tabB.list()).toEqual([g]);
    const cleared = nextRemote(tabA);
    await tabB.revokeAll();
    expect((await cleared).type).toBe("clear");
    expect(await tabA.list()).toEqual([]);
  });

  test("a second document (iframe) grants, and this page sees it; revokeAll here empties it there", async () => {
    const dbName = unique();
    const channelName = `chan-${dbName}`;
    const page = open({ dbName, channelName });
    const other = await storeInFrame(dbName, channelName);
    // Another realm: the iframe loaded its own copy of the module.
    expect(other).not.toBeInstanceOf(IndexedDbGrantStore);
    const seenHere = nextRemote(page);
    const g = await other.grant({
      tool: "send_money",
      subjectKey: "__proto__",
      scope: "thread",
      threadId: "t1",
      grantedAt: 9,
    });
    expect(await seenHere).toEqual({ type: "grant", ids: [grantId(g)], origin: "remote" });
    expect(await page.grantsFor("t1")).toEqual([g]);
    const seenThere = nextRemote(other);
    expect(await page.revoke(grantId(g))).toBe(1);
    expect(await seenThere).toEqual({ type: "revoke", ids: [grantId(g)], origin: "remote" });
    await other.grant({ tool: "search", scope: "always", grantedAt: 1 });
    const clearedThere = nextRemote(other);
    await page.revokeAll();
    expect((await clearedThere).type).toBe("clear");
    expect(await other.list()).toEqual([]);
    other.close();
  });
});
