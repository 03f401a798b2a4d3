// The principal-keyed grant store behind the Durable Object and Deno KV grant stores, over an
// in-memory backend: the GrantStore contract, per-principal routing, and revocations in the audit trail.
import { describe, expect, test } from "vitest";
import { MemoryAuditLog, verifyAuditTrail } from "../../src/index.js";
import { grantId, type Grant } from "../../src/grants/grant.js";
import {
  PrincipalGrantStore,
  grantsAuditThread,
  type PrincipalGrantBackend,
} from "../../src/stores/principal-grants.js";
import { grantStoreContract } from "../grants/store-contract.js";

function memoryBackend() {
  const rows = new Map<string, Map<string, unknown>>();
  const of = (p: string) => {
    let m = rows.get(p);
    if (!m) rows.set(p, (m = new Map()));
    return m;
  };
  const backend: PrincipalGrantBackend = {
    list: async (p) => [...of(p).values()].map((v) => structuredClone(v)),
    put: async (p, id, grant: Grant) => {
      of(p).delete(id);
      of(p).set(id, structuredClone(grant));
    },
    remove: async (p, ids) => ids.filter((id) => of(p).delete(id)).length,
    clear: async (p) => of(p).clear(),
    principals: async () => [...rows.keys()],
  };
  return { backend, rows: of };
}

describe("PrincipalGrantStore (memory backend)", () => {
  grantStoreContract((now) => new PrincipalGrantStore(memoryBackend().backend, { now }));

  test("grants live under their principal; ids route revocations to it", async () => {
    const { backend, rows } = memoryBackend();
    const store = new PrincipalGrantStore(backend);
    const ann = await store.grant({ tool: "pay", scope: "always", principal: "ann" });
    await store.grant({ tool: "pay", scope: "always", principal: "bob" });
    await store.grant({ tool: "pay", scope: "always" });
    expect([...rows("ann").keys()]).toEqual([grantId(ann)]);
    expect(rows("").size).toBe(1);
    expect(await store.revoke(grantId(ann))).toBe(1);
    expect(await store.grantsFor("t", { principal: "ann" })).toEqual([]);
    expect(await store.grantsFor("t", { principal: "bob" })).toHaveLength(1);
    expect(await store.revoke("not an id")).toBe(0);
  });

  test("a stored row that names another person never counts for this one", async () => {
    const { backend } = memoryBackend();
    await backend.put("ann", "x", { tool: "pay", scope: "always", grantedAt: 1, principal: "mallory" });
    await backend.put("ann", "y", { tool: "pay", scope: "always", grantedAt: 1 } as Grant);
    expect(await new PrincipalGrantStore(backend).grantsFor("t", { principal: "ann" })).toEqual([]);
  });

  test("revokePrincipal by tool or whole; each revocation is an audit entry of the person's trail", async () => {
    const audit = new MemoryAuditLog();
    const store = new PrincipalGrantStore(memoryBackend().backend, { audit });
    const pay = await store.grant({ tool: "pay", scope: "always", principal: "ann" });
    const search = await store.grant({ tool: "search", scope: "always", principal: "ann" });
    expect(await store.revokePrincipal("ann", "pay")).toBe(1);
    expect(await store.revokePrincipal("ann", "pay")).toBe(0);
    expect(await store.revokePrincipal("ann")).toBe(1);
    const entries = await audit.entries(grantsAuditThread("ann"));
    expect(entries.map((e) => (e.kind === "revocation" ? e.grantIds : []))).toEqual([
      [grantId(pay)],
      [grantId(search)],
    ]);
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true, count: 2 });
  });

  test("revokeAll takes back every person's grants, each revocation an audit entry of that person's trail", async () => {
    const audit = new MemoryAuditLog();
    const { backend, rows } = memoryBackend();
    const store = new PrincipalGrantStore(backend, { audit });
    const ann = await store.grant({ tool: "pay", scope: "always", principal: "ann" });
    const bob = await store.grant({ tool: "pay", scope: "always", principal: "bob" });
    const nobody = await store.grant({ tool: "search", scope: "always" });
    const changes: string[] = [];
    store.subscribe((c) => changes.push(c.type));
    await store.revokeAll();
    expect(await store.list()).toEqual([]);
    expect([...rows("ann").keys(), ...rows("bob").keys(), ...rows("").keys()]).toEqual([]);
    for (const [who, grant] of [
      ["ann", ann],
      ["bob", bob],
    ] as const) {
      const entries = await audit.entries(grantsAuditThread(who));
      expect(entries.map((e) => (e.kind === "revocation" ? e.grantIds : []))).toEqual([[grantId(grant)]]);
      expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true, count: 1 });
    }
    const unnamed = await audit.entries(grantsAuditThread(undefined));
    expect(unnamed.map((e) => (e.kind === "revocation" ? e.grantIds : []))).toEqual([[grantId(nobody)]]);
    expect(changes).toContain("clear");
    // Nothing left to take back: no entry.
    await store.revokeAll();
    expect(await audit.entries(grantsAuditThread("ann"))).toHaveLength(1);
  });
});
