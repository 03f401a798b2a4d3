/** IndexedDbAuditLog in real Chromium: the AuditLog contract on real IndexedDB, and a trail that survives a new instance. */
import { describe, expect, test } from "vitest";
import type { AuditRecord } from "../../src/agent/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit-verify.js";
import { IndexedDbAuditLog } from "../../src/grants/index.js";
import { AUDIT_CONTRACT_CHECKS, runAuditContract } from "./audit-contract.js";

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
