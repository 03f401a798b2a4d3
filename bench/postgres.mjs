#!/usr/bin/env node
// `node bench/postgres.mjs [rounds]` (npm run bench:postgres): what the PostgreSQL store costs, as ratios
// against bare round trips measured in the same run, on the same single connection (a pool of one):
//   claim+settle: a fresh call claimed and settled (3 statements) ÷ two bare `SELECT 1` round trips
//   replay:       a settled call claimed again (answered "done") ÷ two bare round trips
//   write:        a thread record's compare-and-set (one statement) ÷ one bare round trip
//   log batch:    one batch of 5 events appended to a run's log (one transaction) ÷ one bare round trip
// Rounds alternate the variants; each line gives the median of per-round ratios and the best times, so
// other load on the machine skews little. On a throwaway PostgreSQL cluster (Debian's binaries, as the
// tests start one) and on PGlite in process.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { root } from "./bundle.mjs";

const rounds = Number(process.argv[2] ?? 9);
const N = 200;

mkdirSync(join(root, ".tmp"), { recursive: true });
const file = join(root, ".tmp", `bench-postgres-${process.pid}.mjs`);
await build({
  stdin: {
    contents: `export * from "./src/stores/postgres.ts"; export { startPostgres } from "./test/stores/pg-server.ts";`,
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "node",
  packages: "external",
  outfile: file,
  logLevel: "error",
});
const pgStore = await import(pathToFileURL(file).href);
rmSync(file, { force: true });
const { PGlite } = await import("@electric-sql/pglite");
const { default: pg } = await import("pg");

const result = { status: "success", content: [{ type: "text", text: "sent 5 to bob" }] };

/** Times each variant `N` times per round, alternating; the median ratio of each to its baseline. */
async function measure(label, db) {
  await pgStore.migrate(db);
  const store = new pgStore.PostgresThreadStore(db);
  let thread = "";
  let n = 0;
  const variants = {
    bare1: async () => void (await db.query("SELECT 1", [])),
    bare2: async () => {
      await db.query("SELECT 1", []);
      await db.query("SELECT 1", []);
    },
    "claim+settle": async () => {
      const key = `k${n++}`;
      const ledger = store.ledger(thread);
      const c = await ledger.claim(key);
      await ledger.settle(key, c.token, result);
    },
    replay: async () => void (await store.ledger(thread).claim(`k${n++ % 50}`)),
    write: async () => {
      const t = `w-${crypto.randomUUID()}`;
      await store.compareAndSet(t, 0, {
        owner: null,
        session: null,
        messages: [{ id: "m", role: "user", content: "pay bob 5" }],
        state: {},
        answered: {},
        lease: null,
        updatedAt: 1,
      });
    },
    "log batch": async () => {
      const from = 5 * n++;
      await store.appendEvents(
        thread,
        "run",
        from,
        Array.from({ length: 5 }, (_, i) => ({ type: "CUSTOM", i: from + i })),
        false,
      );
    },
  };
  const base = { "claim+settle": "bare2", replay: "bare2", write: "bare1", "log batch": "bare1" };
  const ratios = Object.fromEntries(Object.keys(base).map((k) => [k, []]));
  const best = Object.fromEntries(Object.keys(variants).map((k) => [k, Number.POSITIVE_INFINITY]));
  for (let round = -1; round < rounds; round++) {
    const order = Object.keys(variants);
    if (round % 2) order.reverse();
    const times = {};
    for (const name of order) {
      thread = `b-${round}-${name}`;
      n = 0;
      // A replay needs settled calls to replay.
      if (name === "replay") for (let i = 0; i < 50; i++) await variants["claim+settle"]();
      n = 0;
      const t0 = performance.now();
      for (let i = 0; i < N; i++) await variants[name]();
      times[name] = (performance.now() - t0) / N;
    }
    if (round < 0) continue; // warm-up
    for (const [name, against] of Object.entries(base)) ratios[name].push(times[name] / times[against]);
    for (const name of Object.keys(variants)) best[name] = Math.min(best[name], times[name]);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `\n${label} (${rounds} rounds of ${N}; one bare round trip ${(best.bare1 * 1000).toFixed(0)} µs at best)`,
  );
  for (const [name, against] of Object.entries(base))
    console.log(
      `  ${name.padEnd(13)} ${(best[name] * 1000).toFixed(0).padStart(6)} µs  ${median(ratios[name]).toFixed(2)}× ${against === "bare2" ? "two bare round trips" : "one bare round trip"} (median), ${(best[name] / best[against]).toFixed(2)}× (best)`,
    );
}

const lite = await PGlite.create();
await measure("PGlite (in process)", pgStore.fromPglite(lite));
await lite.close();

const server = await pgStore.startPostgres();
const pool = new pg.Pool({ connectionString: server.url, max: 1 });
try {
  await measure("PostgreSQL 15 on 127.0.0.1 through pg, one connection", pgStore.fromNodePostgres(pool));
} finally {
  await pool.end();
  server.stop();
}
