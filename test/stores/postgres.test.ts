/**
 * The PostgreSQL store on PGlite (PostgreSQL in WASM, in process): every shared contract, the
 * migration, and what the store refuses. The same contracts run on a real server in
 * postgres-server.test.ts.
 */
import { PGlite } from "@electric-sql/pglite";
import { Pool as NeonPool } from "@neondatabase/serverless";
import { afterAll, describe, expect, test } from "vitest";
import { UserError } from "../../src/errors.js";
import {
  fromNeon,
  fromNodePostgres,
  fromPglite,
  fromPostgresJs,
  migrate,
  PostgresAuditLog,
  PostgresGrantStore,
  POSTGRES_SCHEMA_SQL,
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
  PostgresThreadStore,
  ThreadStoreError,
} from "../../src/stores/postgres.js";
import { data } from "./contract.js";
import { postgresContracts } from "./postgres-contracts.js";

const db = fromPglite(await PGlite.create());
await migrate(db);

postgresContracts("PGlite", () => db);

describe("migrate on PGlite", () => {
  const own = PGlite.create();
  afterAll(async () => (await own).close());

  test("is idempotent and records its version once", async () => {
    expect(await migrate(db)).toEqual({ from: POSTGRES_SCHEMA_VERSION, to: POSTGRES_SCHEMA_VERSION });
    const { rows } = await db.query("SELECT version FROM kaboo_schema_version", []);
    expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
  });

  // One more database (a PGlite costs seconds to start), taken through its life in order: never
  // migrated, built from the exported SQL, then holding a newer schema.
  test("a store on a database never migrated fails with THREAD_STORE_FAILED saying to run migrate", async () => {
    const failure = await new PostgresThreadStore(fromPglite(await own)).load("t").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ThreadStoreError);
    expect((failure as ThreadStoreError).code).toBe("THREAD_STORE_FAILED");
    expect((failure as Error).message).toMatch(/run migrate\(db\) first/);
  });

  test("the exported SQL builds the same tables as migrate, and migrate then finds nothing to do", async () => {
    await (await own).exec(POSTGRES_SCHEMA_SQL);
    const mine = fromPglite(await own);
    expect(await migrate(mine)).toEqual({ from: POSTGRES_SCHEMA_VERSION, to: POSTGRES_SCHEMA_VERSION });
    const tables = (q: typeof db) =>
      q.query(
        "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_name LIKE 'kaboo_%' ORDER BY 1, 2",
        [],
      );
    expect((await tables(mine)).rows).toEqual((await tables(db)).rows);
  });

  test("refuses a database whose schema is newer than this package", async () => {
    const mine = fromPglite(await own);
    await migrate(mine);
    await mine.query("INSERT INTO kaboo_schema_version (version) VALUES ($1::integer)", [POSTGRES_SCHEMA_VERSION + 1]);
    const [newer, known] = [POSTGRES_SCHEMA_VERSION + 1, POSTGRES_SCHEMA_VERSION];
    await expect(migrate(mine)).rejects.toThrow(`schema is version ${newer}; this package knows up to ${known}`);
  });
});

describe("PostgresThreadStore on PGlite: what is stored", () => {
  test("a record is stored as its text; a corrupt one is refused with a typed error", async () => {
    const store = new PostgresThreadStore(db);
    const t = `t-${crypto.randomUUID()}`;
    expect(await store.compareAndSet(t, 0, data("a", { lease: lease("tok") }))).toBe(true);
    const { rows } = await db.query("SELECT version, holder FROM kaboo_threads WHERE thread_id = $1", [t]);
    expect(rows).toEqual([{ version: 1, holder: "tok" }]);
    await db.query("UPDATE kaboo_threads SET body = '{\"format\":9}' WHERE thread_id = $1", [t]);
    await expect(store.load(t)).rejects.toMatchObject({ code: "INVALID_THREAD_RECORD" });
  });

  test("the event log is read after any index, up to Number.MAX_SAFE_INTEGER (the edge asks so whether a run is logged)", async () => {
    const store = new PostgresThreadStore(db);
    const t = `t-${crypto.randomUUID()}`;
    await store.appendEvents(t, "r", 0, [{ n: 0 }], false);
    expect(await store.readEvents(t, "r", Number.MAX_SAFE_INTEGER)).toEqual({ events: [], ended: false });
    expect(await store.readEvents(t, "other", Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  test("an id holding a NUL character is refused with THREAD_STORE_FAILED saying so; NUL inside a record is kept", async () => {
    const store = new PostgresThreadStore(db);
    await expect(store.load("a\u0000b")).rejects.toMatchObject({
      code: "THREAD_STORE_FAILED",
      message: expect.stringMatching(/NUL character/),
    });
    await expect(store.ledger("t").claim("k\u0000")).rejects.toMatchObject({ code: "THREAD_STORE_FAILED" });
    const t = `t-${crypto.randomUUID()}`;
    expect(await store.compareAndSet(t, 0, data("x\u0000y"))).toBe(true);
    expect((await store.load(t)).session).toEqual({ marker: "x\u0000y" });
  });

  test("a corrupt ledger row reads as an unknown claim, never as a call not run", async () => {
    const store = new PostgresThreadStore(db, { now: () => 10_000 });
    const t = `t-${crypto.randomUUID()}`;
    const claimed = await store.ledger(t).claim("k");
    expect(claimed.status).toBe("claimed");
    await db.query("UPDATE kaboo_ledger SET result = 'not json' WHERE thread_id = $1", [t]);
    expect(await store.ledger(t).claim("k")).toEqual({ status: "unknown", claimedAt: 0 });
  });
});

function lease(token: string) {
  return { token, runId: "r", resume: false, expiresAt: Date.now() + 60_000 };
}

describe("what the entry refuses", () => {
  test("an adapter or store given something else than a driver's object: a UserError naming what to pass", async () => {
    expect(() => fromNodePostgres({} as never)).toThrow(/needs a Pool of pg .* no query or connect method/);
    expect(() => fromPostgresJs({ unsafe() {} } as never)).toThrow(/postgres\(url\).* no begin method/);
    expect(() => fromPglite(null as never)).toThrow(UserError);
    expect(() => new PostgresThreadStore({ query: async () => ({ rows: [] }) } as never)).toThrow(
      /no transaction method/,
    );
    expect(() => new PostgresAuditLog({} as never)).toThrow(UserError);
    expect(() => new PostgresGrantStore(undefined as never)).toThrow(UserError);
    await expect(migrate({} as never)).rejects.toBeInstanceOf(UserError);
  });

  test("Neon's Pool is taken as it is (typed and checked; no connection is made here)", async () => {
    const pool = new NeonPool({ connectionString: "postgres://nobody@127.0.0.1:1/none" });
    const db = fromNeon(pool);
    expect([typeof db.query, typeof db.transaction]).toEqual(["function", "function"]);
    await pool.end();
  });
});
