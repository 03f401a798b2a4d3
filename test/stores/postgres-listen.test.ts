/**
 * The live tail of a run's event log across processes on PostgreSQL: an append notifies in its
 * transaction, and a reattach's wait for the run's next events in another store (another process: its
 * own pool) wakes on it at once, instead of waiting out its poll. A wait for another run is not woken;
 * a driver that cannot listen (Neon's pooled endpoint) waits out its poll. On PGlite (in process) and on
 * a real server through pg and postgres.js.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  fromNodePostgres,
  fromPglite,
  fromPostgresJs,
  migrate,
  type PgQueryable,
  PostgresThreadStore,
} from "../../src/stores/postgres.js";
import { startPostgres, type PgServer } from "./pg-server.js";

let server: PgServer | undefined;
const closers: (() => Promise<unknown>)[] = [];
const sides: Record<string, () => [PgQueryable, PgQueryable]> = {};

beforeAll(async () => {
  const lite = fromPglite(await PGlite.create());
  await migrate(lite);
  sides.PGlite = () => [lite, lite];
  server = await startPostgres();
  const pool = () => {
    const p = new pg.Pool({ connectionString: server!.url, max: 4 });
    closers.push(() => p.end());
    return fromNodePostgres(p);
  };
  const js = () => {
    const sql = postgres(server!.url, { max: 4, onnotice: () => {} });
    closers.push(() => sql.end());
    return fromPostgresJs(sql);
  };
  const [a, b, c] = [pool(), pool(), js()];
  await migrate(a);
  sides["a real server, two pg pools"] = () => [a, b];
  sides["a real server, pg writing and postgres.js waiting"] = () => [a, c];
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()));
  server?.stop();
});

/** How long `wait` took, in ms. */
async function timed(wait: Promise<void>): Promise<number> {
  const started = performance.now();
  await wait;
  return performance.now() - started;
}

describe.each(["PGlite", "a real server, two pg pools", "a real server, pg writing and postgres.js waiting"])(
  "LISTEN/NOTIFY for reattaches on %s",
  (side) => {
    test("a wait for the run's next events wakes on the append in the other store, not at its timeout", async () => {
      const [writing, waiting] = sides[side]?.() ?? [];
      const writer = new PostgresThreadStore(writing as PgQueryable);
      const reader = new PostgresThreadStore(waiting as PgQueryable);
      const thread = `t-${crypto.randomUUID()}`;
      // The first wait starts the LISTEN; a notification sent before it listens is only polled for.
      await reader.waitForEvents(thread, "warm-up", 50);
      const woken = timed(reader.waitForEvents(thread, "r1", 10_000));
      const other = timed(reader.waitForEvents(thread, "r2", 600));
      await new Promise((r) => setTimeout(r, 100));
      await writer.appendEvents(thread, "r1", 0, [{ n: 0 }], false);
      expect(await woken).toBeLessThan(3_000);
      // Another run's wait is not woken by it: it waits out its own time.
      expect(await other).toBeGreaterThanOrEqual(550);
      expect(await reader.readEvents(thread, "r1", -1)).toEqual({ events: [{ n: 0 }], ended: false });
    });
  },
);

test("a database without listen (Neon's pooled endpoint) waits out its poll", async () => {
  const lite = fromPglite(await PGlite.create());
  await migrate(lite);
  const { listen: _none, ...withoutListen } = lite;
  const store = new PostgresThreadStore(withoutListen);
  expect(await timed(store.waitForEvents("t", "r", 200))).toBeGreaterThanOrEqual(190);
});
