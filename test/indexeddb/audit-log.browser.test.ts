/** IndexedDbAuditLog in real Chromium: the AuditLog contract on real IndexedDB, and a trail that survives a new instance. */
import { describe, expect, test } from "vitest";
import type { AuditRecord } from "../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";
import { IndexedDbAuditLog } from "../../src/grants/index.js";
import { AUDIT_CONTRACT_CHECKS, runAuditContract } from "../agent/audit-contract.js";

describe("IndexedDbAuditLog in Chromium", () => {
  test("passes the AuditLog contract (two instances over one database race like two tabs)", async () => {
    const dbName = `audit-${crypto.randomUUID()}`;
    const results = await runAuditContract(() => new IndexedDbAuditLog({ dbName }));
    expect(results.map((r) => r.name)).toEqual(AUDIT_CONTRACT_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });

  test("a new instance (a reload) reads the trail and extends the same chain", async () => {
    const dbName = `audit-${crypto.randomUUID()}`;
    const record: AuditRecord = { kind: "revocation", grantIds: ["g"], principal: "ann", by: null };
    await new IndexedDbAuditLog({ dbName }).append("t", record);
    const reloaded = new IndexedDbAuditLog({ dbName });
    const second = await reloaded.append("t", record);
    expect(second.seq).toBe(1);
    expect(await verifyAuditTrail(await reloaded.entries("t"))).toMatchObject({ ok: true, count: 2 });
  });
});

describe("a trail tampered with in IndexedDB (devtools, an extension)", () => {
  test("an edited, dropped or reordered entry is found", async () => {
    const { createStore, get, set, del } = await import("idb-keyval");
    const dbName = `audit-${crypto.randomUUID()}`;
    const log = new IndexedDbAuditLog({ dbName });
    for (let i = 0; i < 4; i++)
      await log.append("t", { kind: "revocation", grantIds: [`g${i}`], principal: "ann", by: null });
    const store = createStore(dbName, "entries");
    const entry = (await get(["t", 1], store)) as Record<string, unknown>;
    await set(["t", 1], { ...entry, grantIds: ["forged"] }, store);
    expect(await verifyAuditTrail(await log.entries("t"))).toMatchObject({ ok: false, problem: "edited", index: 1 });
    await set(["t", 1], entry, store);
    expect(await verifyAuditTrail(await log.entries("t"))).toMatchObject({ ok: true });
    const two = await get(["t", 2], store);
    await del(["t", 2], store);
    expect(await verifyAuditTrail(await log.entries("t"))).toMatchObject({ ok: false, problem: "dropped", index: 2 });
    const three = (await get(["t", 3], store)) as Record<string, unknown>;
    await set(["t", 2], three, store);
    await set(["t", 3], two, store);
    expect(await verifyAuditTrail(await log.entries("t"))).toMatchObject({ ok: false, problem: "reordered", index: 2 });
  });
});
