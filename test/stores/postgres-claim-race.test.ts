/**
 * The PostgreSQL ledger's claim against an insert of the same call that another connection has made
 * and not yet committed, on a real server (pg-server.ts): the claim's statement waits on that row, and
 * its snapshot was taken before the other committed, so it neither inserts nor sees the row (a lost
 * insert race). It must then read again, never answer `claimed`; when the other rolls back, it claims.
 * Both claim paths: the bare insert (a ledger's first claim), and the one statement that inserts or else
 * reads (a claim after one that found its row, as in a resumed run); and the in-process hint that
 * PGlite's adapter sets (always the bare insert).
 */
import pg from "pg";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  fromNodePostgres,
  fromPostgresJs,
  migrate,
  PostgresThreadStore,
  type PgQueryable,
} from "../../src/stores/postgres.js";
import { startPostgres, type PgServer } from "./pg-server.js";

let server: PgServer | undefined;
const closers: (() => Promise<unknown>)[] = [];
let drivers: Record<string, PgQueryable>;

beforeAll(async () => {
  server = await startPostgres();
  const pool = new pg.Pool({ connectionString: server.url, max: 4 });
  const sql = postgres(server.url, { max: 4, onnotice: () => {} });
  closers.push(
    () => pool.end(),
    () => sql.end(),
  );
  const viaPg = fromNodePostgres(pool);
  // The same pool with the in-process hint: the claim's insert and read as two statements (as on PGlite).
  drivers = { pg: viaPg, "postgres.js": fromPostgresJs(sql), "pg as two statements": { ...viaPg, inProcess: true } };
  await migrate(drivers.pg!);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()));
  server?.stop();
});

/** Resolves once a statement on the ledger waits for a lock (the claim blocked on the other's row). */
async function waitingOnLock(db: PgQueryable): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await db.query(
      "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%kaboo_ledger%'",
      [],
    );
    if (rows[0]?.n === 1) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the claim never waited on the other insert");
}

describe("a claim racing another connection's uncommitted insert of the same call", () => {
  test.each(
    ["pg", "postgres.js", "pg as two statements"].flatMap((driver) =>
      [false, true].flatMap((replaying) => [
        [driver, replaying ? "after a replay" : "first", "COMMIT", "running"],
        [driver, replaying ? "after a replay" : "first", "ROLLBACK", "claimed"],
      ]),
    ),
  )("through %s, the ledger's claim %s, the other's %s: the claim reads %s", async (driver, when, end, status) => {
    const other = new pg.Client({ connectionString: server!.url });
    await other.connect();
    try {
      const thread = `t-${crypto.randomUUID()}`;
      const now = Date.now();
      await other.query("BEGIN");
      await other.query(
        "INSERT INTO kaboo_ledger (thread_id, key, token, claimed_at, lease_expires_at) VALUES ($1, 'pay', 'other', $2, $3)",
        [thread, now, now + 60_000],
      );
      const store = new PostgresThreadStore(drivers[driver]!);
      const ledger = store.ledger(thread);
      if (when === "after a replay") {
        const earlier = await store.ledger(thread).claim("earlier");
        if (earlier.status !== "claimed") throw new Error(earlier.status);
        await store.ledger(thread).settle("earlier", earlier.token, { status: "success", content: [] });
        expect((await ledger.claim("earlier")).status).toBe("done");
      }
      const claim = ledger.claim("pay");
      await waitingOnLock(drivers.pg!);
      await other.query(end);
      const outcome = await claim;
      expect(outcome.status).toBe(status);
      // Whoever holds the call, exactly one row names it, and a second claim reads it running.
      const { rows } = await drivers.pg!.query("SELECT token FROM kaboo_ledger WHERE thread_id = $1 AND key = 'pay'", [
        thread,
      ]);
      expect(rows).toEqual([{ token: outcome.status === "claimed" ? outcome.token : "other" }]);
      expect((await store.ledger(thread).claim("pay")).status).toBe("running");
    } finally {
      await other.end();
    }
  });
});
