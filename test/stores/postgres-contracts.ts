/**
 * The shared contracts (thread store, holder, ledger, audit, grants) registered against the PostgreSQL
 * store over one database, so the same suite runs on PGlite (postgres.test.ts) and on a real server
 * (postgres-server.test.ts).
 */
import { describe, expect, test } from "vitest";
import {
  migrate,
  PostgresAuditLog,
  PostgresGrantStore,
  PostgresThreadStore,
  type PgQuery,
  type PgQueryable,
} from "../../src/stores/postgres.js";
import { AUDIT_CONTRACT_CHECKS, runAuditContract } from "../agent/audit-contract.js";
import { executionLedgerContract } from "../agent/ledger-contract.js";
import { grantId } from "../../src/grants/grant.js";
import { grantsAuditThread } from "../../src/grants/store.js";
import { verifyAuditTrail } from "../../src/index.js";
import { grantStoreContract } from "../grants/store-contract.js";
import { CONTRACT_CHECKS, runStoreContract } from "./contract.js";
import { HOLDER_CHECKS, runHolderContract } from "./holder-contract.js";
import { GRANT_CHECKS, runGrantChecks } from "./server-grant-contract.js";

/**
 * A database whose statements wait for the grant tables to be emptied
 * first: the grant contract wants an empty store from each `make`, which must return at once.
 */
function withEmptyGrants(db: PgQueryable): PgQuery {
  const ready = (async () => {
    await db.query("DELETE FROM kaboo_grants", []);
    await db.query("DELETE FROM kaboo_grant_principals", []);
  })();
  return { query: async (text, params) => (await ready, db.query(text, params)) };
}

/**
 * Registers every contract against the store on `db` (migrated here, once).
 *
 * @param label - Where it runs (PGlite, a real server).
 * @param database - The database (a promise: a server may still be starting).
 */
export function postgresContracts(label: string, database: () => PgQueryable): void {
  describe(`PostgresThreadStore on ${label}: the store contract`, () => {
    test.each(CONTRACT_CHECKS.map((name) => [name]))("%s", async (name) => {
      const results = await contractResults(database());
      expect(results.find((x) => x.name === name)?.error).toBeUndefined();
    });

    test("claims of a run that was taken over (the holder contract)", async () => {
      const results = await runHolderContract(new PostgresThreadStore(database()));
      expect(results.map((r) => r.name)).toEqual(HOLDER_CHECKS);
      expect(results.filter((r) => r.error)).toEqual([]);
    });
  });

  describe(`PostgresThreadStore on ${label}: a thread's ledger is an ExecutionLedger`, () => {
    executionLedgerContract((now) => new PostgresThreadStore(database(), { now }).ledger(`t-${crypto.randomUUID()}`));
  });

  describe(`PostgresAuditLog on ${label}`, () => {
    test("the AuditLog contract (two instances over one database)", async () => {
      const results = await runAuditContract(() => new PostgresAuditLog(database()));
      expect(results.map((r) => r.name)).toEqual(AUDIT_CONTRACT_CHECKS);
      expect(results.filter((r) => r.error)).toEqual([]);
    });
  });

  describe(`PostgresGrantStore on ${label}`, () => {
    grantStoreContract((now) => new PostgresGrantStore(withEmptyGrants(database()), { now }));
    test("the server grant stores' contract (instances over one database)", async () => {
      // Its checks read grants that name no person: none left by the contract above.
      const db = withEmptyGrants(database());
      const results = await runGrantChecks(() => new PostgresGrantStore(db));
      expect(results.map((r) => r.name)).toEqual(GRANT_CHECKS);
      expect(results.filter((r) => r.error)).toEqual([]);
    });

    test("revokePrincipal writes one revocation entry in the person's chained trail", async () => {
      const ann = `ann-${crypto.randomUUID()}`;
      const audit = new PostgresAuditLog(database());
      const store = new PostgresGrantStore(database(), { audit });
      const pay = await store.grant({ tool: "pay", scope: "always", principal: ann });
      const search = await store.grant({ tool: "search", scope: "always", principal: ann });
      expect(await store.revokePrincipal(ann, "pay")).toBe(1);
      expect(await store.revokePrincipal(ann, "pay")).toBe(0);
      expect(await store.revokePrincipal(ann)).toBe(1);
      const entries = await audit.entries(grantsAuditThread(ann));
      expect(entries.map((e) => (e.kind === "revocation" ? e.grantIds : []))).toEqual([
        [grantId(pay)],
        [grantId(search)],
      ]);
      expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true, count: 2 });
    });
  });
}

const runs = new WeakMap<PgQueryable, ReturnType<typeof runStoreContract>>();

/** The store contract's results on `db`, run once per database. */
function contractResults(db: PgQueryable): ReturnType<typeof runStoreContract> {
  let run = runs.get(db);
  if (!run) runs.set(db, (run = migrate(db).then(() => runStoreContract(new PostgresThreadStore(db)))));
  return run;
}
