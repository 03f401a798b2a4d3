// MemoryGrantStore is a server grant store like the Durable Object and Deno KV ones: the same revocation
// contract (test/stores/server-grant-contract.ts, run in workerd and Deno by test/runtimes/governance.test.ts)
// holds on it, and revokePrincipal records what it took back in the person's audit trail.
import { describe, expect, test } from "vitest";
import { grantId } from "../../src/grants/grant.js";
import { MemoryAuditLog, verifyAuditTrail } from "../../src/index.js";
import { grantsAuditThread, type ServerGrantStore } from "../../src/grants/store.js";
import { MemoryGrantStore } from "../../src/stores/memory.js";
import { GRANT_CHECKS, runGrantChecks } from "./server-grant-contract.js";

describe("MemoryGrantStore as a server grant store", () => {
  test("passes the server grant stores' contract", async () => {
    const store = new MemoryGrantStore();
    const results = await runGrantChecks(() => store);
    expect(results.map((r) => r.name)).toEqual(GRANT_CHECKS);
    expect(results.filter((r) => r.error)).toEqual([]);
  });

  test("revokePrincipal tells subscribers and writes one revocation entry in the person's trail", async () => {
    const audit = new MemoryAuditLog();
    const store: ServerGrantStore = new MemoryGrantStore({ audit });
    const changes: unknown[] = [];
    store.subscribe((change) => changes.push(change));
    const pay = await store.grant({ tool: "pay", scope: "always", principal: "ann" });
    await store.grant({ tool: "pay", scope: "always", principal: "bob" });
    expect(await store.revokePrincipal("ann", "pay")).toBe(1);
    expect(await store.revokePrincipal("ann")).toBe(0);
    expect(changes.at(-1)).toEqual({ type: "revoke", ids: [grantId(pay)], origin: "local" });
    const entries = await audit.entries(grantsAuditThread("ann"));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ kind: "revocation", grantIds: [grantId(pay)], principal: "ann" });
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true, count: 1 });
    expect(await audit.entries(grantsAuditThread("bob"))).toEqual([]);
  });
});
