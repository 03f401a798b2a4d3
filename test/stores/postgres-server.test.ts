/**
 * The PostgreSQL store on a real server (a throwaway cluster on 127.0.0.1, see pg-server.ts): every
 * shared contract through node-postgres and through postgres.js, then what several processes sharing
 * one database rely on, each side on its own pool (its own connections): one claim of a call among
 * two pools, one winner of a compare-and-set, concurrent migrations, a revocation seen at once.
 */
import pg from "pg";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  fromNodePostgres,
  fromPostgresJs,
  migrate,
  POSTGRES_MIGRATIONS,
  POSTGRES_VERSION_TABLE,
  POSTGRES_SCHEMA_VERSION,
  PostgresGrantStore,
  PostgresThreadStore,
  type PgQueryable,
} from "../../src/stores/postgres.js";
import { encodeThread } from "../../src/stores/thread-store.js";
import { data } from "./contract.js";
import { postgresContracts } from "./postgres-contracts.js";
import { startPostgres, type PgServer } from "./pg-server.js";

let server: PgServer | undefined;
const closers: (() => Promise<unknown>)[] = [];
let viaPg: PgQueryable;
let viaPostgresJs: PgQueryable;
let viaPgUnprepared: PgQueryable;
let viaPostgresJsUnprepared: PgQueryable;

/** A pool of its own (as another process has) on `database`. */
function pool(database = "postgres", prepare = true): PgQueryable {
  const p = new pg.Pool({ connectionString: server!.urlOf(database), max: 8 });
  closers.push(() => p.end());
  return fromNodePostgres(p, { prepare });
}

beforeAll(async () => {
  server = await startPostgres();
  viaPg = pool();
  viaPgUnprepared = pool("postgres", false);
  const sql = postgres(server.url, { max: 8, onnotice: () => {} });
  closers.push(() => sql.end());
  viaPostgresJs = fromPostgresJs(sql);
  const unprepared = postgres(server.url, { max: 2, prepare: false, onnotice: () => {} });
  closers.push(() => unprepared.end());
  viaPostgresJsUnprepared = fromPostgresJs(unprepared);
  await migrate(viaPg);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()));
  server?.stop();
});

postgresContracts("a real server (pg)", () => viaPg);
postgresContracts("a real server (postgres.js)", () => viaPostgresJs);
postgresContracts("a real server (pg, statements not prepared)", () => viaPgUnprepared);

describe("the adapters' transactions on a real server", () => {
  test.each([
    ["pg", true, 1],
    ["pg", false, 0],
    ["postgres.js", true, 1],
    ["postgres.js", false, 0],
  ])("%s with prepare %s: the store's statements are prepared on the connection (%i)", async (driver, prepare, n) => {
    const db =
      driver === "pg" ? (prepare ? viaPg : viaPgUnprepared) : prepare ? viaPostgresJs : viaPostgresJsUnprepared;
    const names = await db.transaction(async (tx) => {
      await new PostgresThreadStore({ query: tx.query, transaction: (fn) => fn(tx) }).load(`t-${crypto.randomUUID()}`);
      return (
        await tx.query("SELECT name FROM pg_prepared_statements WHERE statement = $1", [
          "SELECT body FROM kaboo_threads WHERE thread_id = $1",
        ])
      ).rows;
    });
    expect(names.length).toBe(n);
  });

  test("pg: statements of your own built on the fly are named only up to a bound, then sent unnamed", async () => {
    const prepared = await viaPg.transaction(async (tx) => {
      for (let i = 0; i < 300; i++)
        expect((await tx.query(`SELECT $1::integer AS n${i}`, [i])).rows).toEqual([{ [`n${i}`]: i }]);
      return (await tx.query("SELECT count(*)::integer AS n FROM pg_prepared_statements", [])).rows[0]?.n;
    });
    expect(prepared).toBeGreaterThan(200);
    expect(prepared).toBeLessThanOrEqual(256);
  });

  test.each(["pg", "postgres.js"])(
    "%s: a transaction that throws writes nothing, and its connection goes back to the pool",
    async (which) => {
      const db = which === "pg" ? viaPg : viaPostgresJs;
      const table = `test_tx_${which === "pg" ? "pg" : "js"}`;
      await db.query(`CREATE TABLE ${table} (n integer)`, []);
      // More failed transactions than the pool has connections (8): each gave its connection back.
      for (let i = 0; i < 12; i++) {
        const failed = db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${table} (n) VALUES ($1::integer)`, [i]);
          throw new Error("boom");
        });
        await expect(failed).rejects.toThrow("boom");
      }
      expect((await db.query(`SELECT count(*)::integer AS n FROM ${table}`, [])).rows).toEqual([{ n: 0 }]);
      const kept = await db.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${table} (n) VALUES (1)`, []);
        return (await tx.query(`SELECT n FROM ${table}`, [])).rows;
      });
      expect(kept).toEqual([{ n: 1 }]);
      expect((await db.query(`SELECT n FROM ${table}`, [])).rows).toEqual([{ n: 1 }]);
    },
  );
});

describe("two pools (two processes) on one real server", () => {
  test("claiming the same calls at once: exactly one claimed per call, the rest running", async () => {
    const [a, b] = [new PostgresThreadStore(pool()), new PostgresThreadStore(pool())];
    const thread = `t-${crypto.randomUUID()}`;
    const keys = Array.from({ length: 20 }, (_, i) => `call-${i}`);
    const outcomes = await Promise.all(
      keys.flatMap((key) =>
        [a, b, a, b].map((store) =>
          store
            .ledger(thread)
            .claim(key)
            .then((o) => ({ key, o })),
        ),
      ),
    );
    for (const key of keys) {
      const mine = outcomes.filter((x) => x.key === key).map((x) => x.o.status);
      expect(
        mine.filter((s) => s === "claimed"),
        key,
      ).toHaveLength(1);
      expect(
        mine.filter((s) => s === "running"),
        key,
      ).toHaveLength(3);
    }
  });

  test("taking over the same lost claim at once: one claimed, and the result settled by it is replayed to the other", async () => {
    const [a, b] = [new PostgresThreadStore(pool()), new PostgresThreadStore(pool())];
    const thread = `t-${crypto.randomUUID()}`;
    expect((await a.ledger(thread).claim("pay", { leaseMs: 1 })).status).toBe("claimed");
    await new Promise((r) => setTimeout(r, 10));
    const both = await Promise.all([a, b, a, b].map((s) => s.ledger(thread).claim("pay", { takeOverUnknown: true })));
    const won = both.filter((o) => o.status === "claimed");
    expect(won).toHaveLength(1);
    const result = { status: "success" as const, content: [{ type: "text" as const, text: "sent 5" }] };
    if (won[0]?.status === "claimed") await b.ledger(thread).settle("pay", won[0].token, result);
    expect(await a.ledger(thread).claim("pay", { takeOverUnknown: true })).toEqual({ status: "done", result });
  });

  test("a claim and the compare-and-set that hands the thread to another run: the old run claims nothing after it", async () => {
    const [a, b] = [new PostgresThreadStore(pool()), new PostgresThreadStore(pool())];
    for (let i = 0; i < 10; i++) {
      const thread = `t-${crypto.randomUUID()}`;
      const lease = (token: string) => ({ token, runId: token, resume: false, expiresAt: Date.now() + 60_000 });
      await a.compareAndSet(thread, 0, data("x", { lease: lease("old") }));
      const [claimed, taken] = await Promise.all([
        a.ledger(thread, { token: "old" }).claim("k"),
        b.compareAndSet(thread, 1, data("y", { lease: lease("new") })),
      ]);
      expect(taken).toBe(true);
      // Either the claim came first (and the new run reads it cut off), or it was refused.
      const next = await b.ledger(thread, { token: "new", tookOver: "old" }).claim("k");
      if (claimed.status === "claimed") expect(next.status).toBe("unknown");
      else expect([claimed.status, next.status]).toEqual(["running", "claimed"]);
      expect((await a.ledger(thread, { token: "old" }).claim("k2")).status).toBe("running");
    }
  });

  test("a late settle racing a take-over from the other pool: the result is kept and replayed, or the take-over holds and nothing is recorded", async () => {
    const [a, b] = [new PostgresThreadStore(pool()), new PostgresThreadStore(pool())];
    const result = { status: "success" as const, content: [{ type: "text" as const, text: "sent 5" }] };
    for (let i = 0; i < 12; i++) {
      const thread = `t-${crypto.randomUUID()}`;
      const first = await a.ledger(thread).claim("pay", { leaseMs: 1 });
      if (first.status !== "claimed") throw new Error(first.status);
      await new Promise((r) => setTimeout(r, 5));
      const [, taken] = await Promise.all([
        a.ledger(thread).settle("pay", first.token, result),
        b.ledger(thread).claim("pay", { takeOverUnknown: true }),
      ]);
      const after = await a.ledger(thread).claim("pay");
      if (taken.status === "claimed") expect(after.status).toBe("running");
      else
        expect([taken, after]).toEqual([
          { status: "done", result },
          { status: "done", result },
        ]);
    }
  });

  test("the same event batch appended from both pools at once is logged once", async () => {
    const [a, b] = [new PostgresThreadStore(pool()), new PostgresThreadStore(pool())];
    const thread = `t-${crypto.randomUUID()}`;
    for (let from = 0; from < 20; from += 2) {
      const batch = [{ n: from }, { n: from + 1 }];
      await Promise.all([a, b, a, b].map((s) => s.appendEvents(thread, "r", from, batch, false)));
    }
    const logged = await b.readEvents(thread, "r", -1);
    expect(logged?.events).toEqual(Array.from({ length: 20 }, (_, n) => ({ n })));
  });

  test("compare-and-set from both pools over one version: exactly one wins", async () => {
    const [a, b] = [new PostgresThreadStore(pool()), new PostgresThreadStore(pool())];
    const thread = `t-${crypto.randomUUID()}`;
    await a.compareAndSet(thread, 0, data("base"));
    const wins = await Promise.all([a, b, a, b, a, b].map((s, i) => s.compareAndSet(thread, 1, data(`m${i}`))));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect((await b.load(thread)).session).toEqual({ marker: `m${wins.indexOf(true)}` });
  });

  test("migrate from two pools at once on a fresh database: both succeed, the schema is made once", async () => {
    const name = `m_${crypto.randomUUID().replaceAll("-", "")}`;
    await viaPg.query(`CREATE DATABASE ${name}`, []);
    const [a, b, c] = [pool(name), pool(name), pool(name)];
    const results = await Promise.all([migrate(a), migrate(b), migrate(c)]);
    expect(results.map((r) => r.to)).toEqual([
      POSTGRES_SCHEMA_VERSION,
      POSTGRES_SCHEMA_VERSION,
      POSTGRES_SCHEMA_VERSION,
    ]);
    expect(results.filter((r) => r.from === 0)).toHaveLength(1);
    expect((await a.query("SELECT version FROM kaboo_schema_version ORDER BY 1", [])).rows).toEqual(
      POSTGRES_MIGRATIONS.map((m) => ({ version: m.version })),
    );
    expect((await new PostgresThreadStore(b).ledger("t").claim("k")).status).toBe("claimed");
  });

  test("migrate upgrades a database of the first version in place: its threads stay, and a second migrate does nothing", async () => {
    const name = `m_${crypto.randomUUID().replaceAll("-", "")}`;
    await viaPg.query(`CREATE DATABASE ${name}`, []);
    const old = pool(name);
    // What the first version of this package made.
    await old.query(POSTGRES_VERSION_TABLE, []);
    for (const s of POSTGRES_MIGRATIONS[0]!.statements) await old.query(s, []);
    await old.query("INSERT INTO kaboo_schema_version (version) VALUES (1)", []);
    await old.query("INSERT INTO kaboo_threads (thread_id, version, body, holder) VALUES ('t', 1, $1, NULL)", [
      encodeThread(1, data("kept")),
    ]);
    expect(await Promise.all([migrate(old), migrate(pool(name))])).toEqual(
      expect.arrayContaining([{ from: 1, to: POSTGRES_SCHEMA_VERSION }]),
    );
    expect(await migrate(old)).toEqual({ from: POSTGRES_SCHEMA_VERSION, to: POSTGRES_SCHEMA_VERSION });
    expect(await new PostgresThreadStore(old).load("t")).toMatchObject({ version: 1, session: { marker: "kept" } });
    expect((await old.query("SELECT count(*)::integer AS n FROM kaboo_hosted_runs", [])).rows).toEqual([{ n: 0 }]);
  });

  test("a revocation in one pool holds in the other on its next read", async () => {
    const [a, b] = [new PostgresGrantStore(pool()), new PostgresGrantStore(pool())];
    const ann = `ann-${crypto.randomUUID()}`;
    await a.grant({ tool: "transfer", scope: "always", principal: ann });
    await a.grant({ tool: "search", scope: "always", principal: ann });
    expect((await b.grantsFor("t", { principal: ann })).map((g) => g.tool).sort()).toEqual(["search", "transfer"]);
    expect(await a.revokePrincipal(ann, "transfer")).toBe(1);
    expect((await b.grantsFor("t", { principal: ann })).map((g) => g.tool)).toEqual(["search"]);
    expect(await b.revokePrincipal(ann)).toBe(1);
    expect(await a.grantsFor("t", { principal: ann })).toEqual([]);
  });
});
