#!/usr/bin/env node
// `node bench/postgres.mjs [rounds]` (npm run bench:postgres): what the PostgreSQL store costs, as ratios
// against bare round trips measured in the same run, on the same single connection (a pool of one):
//   claim+settle: a fresh call claimed and settled (2 statements: the claim's insert, the settle's
//                 update) ÷ two bare `SELECT 1` round trips; a run claims all its calls in one ledger
//   as a run's:   the same, claimed as a run that holds the thread (the thread's record names its lease,
//                 which the claim checks and locks FOR SHARE): what a handler's runs do
//   replay:       settled calls claimed again in a row, as a resumed run does (answered "done"; one
//                 statement each, two for the first) ÷ two bare round trips
//   two writes:   no store: a plain single-row INSERT and an UPDATE of that row (a scratch table, its
//                 primary key text) ÷ two bare round trips: what any two committed writes cost, the floor
//                 under claim+settle
//   write:        a thread record's compare-and-set (one statement) ÷ one bare round trip
//   log batch:    one batch of 5 events appended to a run's log (one transaction) ÷ one bare round trip
// Each variant runs N times in blocks of K alternating with blocks of its baseline, and rounds alternate the
// variants' order; each line gives the median of per-round ratios and the best times, so other load on the
// machine skews little. On PGlite in process, then on a throwaway PostgreSQL cluster
// (Debian's binaries, fsync and synchronous_commit off, as the tests start one) through pg and through
// postgres.js (both prepare the store's statements).
// Then, in this process on the same cluster: a run's first byte through createAguiHandler on the store
// against a handler that reads the body, makes one query and answers one SSE event; and a whole run with
// the event log against the same store without one (its cost per run).
// Then 100 threads: two Node server processes (the tests' bank agent behind createAguiHandler on one
// PostgreSQL cluster, test/agui/edge/postgres-process.ts), 100 first turns sent at once, half to each;
// p50 and p99 of a turn's time (request to the response's end) in ms, and as ratios to a turn sent
// alone; for the plain handler and for the handler behind PostgresRunHost (its sweeper running).
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { root } from "./bundle.mjs";

const rounds = Number(process.argv[2] ?? 9);
const N = 200;
const K = 10;

mkdirSync(join(root, ".tmp"), { recursive: true });
const file = join(root, ".tmp", `bench-postgres-${process.pid}.mjs`);
await build({
  stdin: {
    contents: `export * from "./src/stores/postgres.ts"; export { startPostgres } from "./test/stores/pg-server.ts"; export { processes } from "./test/agui/edge/pg-processes.ts"; export { createAguiHandler } from "./src/agui/index.ts"; export { Agent, ScriptedModel } from "./src/index.ts";`,
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
const { default: postgres } = await import("postgres");

const result = { status: "success", content: [{ type: "text", text: "sent 5 to bob" }] };

/** Times each variant `N` times per round, alternating; the median ratio of each to its baseline. */
async function measure(label, db) {
  await pgStore.migrate(db);
  await db.query("CREATE TABLE IF NOT EXISTS bench_rows (k text PRIMARY KEY, v text)", []);
  const store = new pgStore.PostgresThreadStore(db);
  let thread = "";
  // A run claims all its calls in one ledger of its thread (and a resumed run replays its earlier ones).
  let ledger;
  let n = 0;
  const run = { token: "bench-run" };
  const lease = { ...run, runId: "bench-run", resume: false, expiresAt: Date.now() + 3_600_000 };
  const record = { owner: null, session: null, messages: [], state: {}, answered: {}, lease, updatedAt: 1 };
  const variants = {
    bare1: async () => void (await db.query("SELECT 1", [])),
    bare2: async () => {
      await db.query("SELECT 1", []);
      await db.query("SELECT 1", []);
    },
    "claim+settle": async () => {
      const key = `k${n++}`;
      const c = await ledger.claim(key);
      await ledger.settle(key, c.token, result);
    },
    "as a run's": async () => {
      const key = `k${n++}`;
      const c = await ledger.claim(key);
      if (c.status !== "claimed") throw new Error(`a run's claim read ${c.status}`);
      await ledger.settle(key, c.token, result);
    },
    replay: async () => void (await ledger.claim(`k${n++ % 50}`)),
    "two writes": async () => {
      const k = `${thread}/${n++}`;
      await db.query("INSERT INTO bench_rows (k, v) VALUES ($1, $2)", [k, "claimed"]);
      await db.query("UPDATE bench_rows SET v = $2 WHERE k = $1", [k, JSON.stringify(result)]);
    },
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
  const base = {
    "claim+settle": "bare2",
    "as a run's": "bare2",
    replay: "bare2",
    "two writes": "bare2",
    write: "bare1",
    "log batch": "bare1",
  };
  const ratios = Object.fromEntries(Object.keys(base).map((k) => [k, []]));
  const best = Object.fromEntries(Object.keys(variants).map((k) => [k, Number.POSITIVE_INFINITY]));
  for (let round = -1; round < rounds; round++) {
    const order = Object.keys(base);
    if (round % 2) order.reverse();
    for (const name of order) {
      thread = `b-${label}-${round}-${name}`;
      ledger = store.ledger(thread, name === "as a run's" ? run : undefined);
      n = 0;
      // A replay needs settled calls to replay (made by another run: its own ledger).
      if (name === "replay") for (let i = 0; i < 50; i++) await variants["claim+settle"]();
      ledger = store.ledger(thread, name === "as a run's" ? run : undefined);
      // A run's claims check that the thread's record names its lease.
      if (name === "as a run's") await store.compareAndSet(thread, 0, record);
      n = 0;
      // The variant and its baseline in alternating blocks of K, so that load coming and going in
      // between (other processes on the machine) falls on both alike.
      const against = base[name];
      const spent = { [name]: 0, [against]: 0 };
      for (let block = 0; block < N / K; block++) {
        for (const which of block % 2 ? [name, against] : [against, name]) {
          const t0 = performance.now();
          for (let i = 0; i < K; i++) await variants[which]();
          spent[which] += performance.now() - t0;
        }
      }
      if (round < 0) continue; // warm-up
      ratios[name].push(spent[name] / spent[against]);
      for (const which of [name, against]) best[which] = Math.min(best[which], spent[which] / N);
    }
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
const handlerPool = new pg.Pool({ connectionString: server.url, max: 4 });
const sql = postgres(server.url, { max: 1, onnotice: () => {} });
try {
  await measure("PostgreSQL 15 on 127.0.0.1 through pg, one connection", pgStore.fromNodePostgres(pool));
  await measure("PostgreSQL 15 on 127.0.0.1 through postgres.js, one connection", pgStore.fromPostgresJs(sql));
  await runs(pgStore.fromNodePostgres(handlerPool));
} finally {
  await Promise.all([pool.end(), handlerPool.end(), sql.end()]);
  server.stop();
}

/** A run's first byte against a one-query handler, and a whole run with the event log against without it. */
async function runs(db) {
  const quiet = { debug() {}, warn() {}, error() {} };
  const agent = () =>
    new pgStore.Agent({ model: new pgStore.ScriptedModel({ script: () => ({ text: "Hello! ".repeat(20) }) }) });
  const store = new pgStore.PostgresThreadStore(db);
  // The same store with no event log: the runs are the same, nothing is logged.
  const unlogged = {
    load: (t) => store.load(t),
    compareAndSet: (t, v, d) => store.compareAndSet(t, v, d),
    ledger: (t, h) => store.ledger(t, h),
  };
  const logged = pgStore.createAguiHandler({ agent, stores: { thread: store }, logger: quiet });
  const plain = pgStore.createAguiHandler({ agent, stores: { thread: unlogged }, logger: quiet });
  const sse = new TextEncoder().encode('data: {"type":"RUN_STARTED"}\n\n');
  const oneQuery = async (request) => {
    await request.json();
    await db.query("SELECT 1", []);
    return new Response(sse, { headers: { "content-type": "text/event-stream" } });
  };
  const request = () =>
    new Request("http://bench/agui", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: `r-${crypto.randomUUID()}`,
        runId: crypto.randomUUID(),
        messages: [{ id: "m", role: "user", content: "hello" }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
  /** ms to the response's first byte, then the rest read (so the run ends before the next). */
  const firstByte = async (handle) => {
    const t0 = performance.now();
    const reader = (await handle(request())).body.getReader();
    await reader.read();
    const at = performance.now() - t0;
    while (!(await reader.read()).done);
    return at;
  };
  const whole = async (handle) => {
    const t0 = performance.now();
    await (await handle(request())).text();
    return performance.now() - t0;
  };
  const n = 40;
  const ratios = { first: [], log: [] };
  const best = { first: Infinity, oneQuery: Infinity, logged: Infinity, plain: Infinity };
  for (let round = -1; round < rounds; round++) {
    const t = { first: 0, oneQuery: 0, logged: 0, plain: 0 };
    for (let i = 0; i < n; i++) {
      t.first += await firstByte(logged);
      t.oneQuery += await firstByte(oneQuery);
      t.logged += await whole(logged);
      t.plain += await whole(plain);
    }
    if (round < 0) continue; // warm-up
    ratios.first.push(t.first / t.oneQuery);
    ratios.log.push(t.logged / t.plain);
    for (const k of Object.keys(best)) best[k] = Math.min(best[k], t[k] / n);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\nA run through createAguiHandler on PostgreSQL 15 (pg, a pool of 4; ${rounds} rounds of ${n})`);
  console.log(
    `  first byte  ${best.first.toFixed(2)} ms against ${best.oneQuery.toFixed(2)} ms for a handler that answers after one query: ${median(ratios.first).toFixed(2)}× (median)`,
  );
  console.log(
    `  event log   a whole run ${best.logged.toFixed(2)} ms with it, ${best.plain.toFixed(2)} ms without: ${median(ratios.log).toFixed(2)}× per run (median; goal ≤ 1.2×)`,
  );
}

/** One first turn of a new thread through `handle`; its time in ms. */
async function turn(handle, i) {
  const body = {
    threadId: `n-${crypto.randomUUID()}`,
    runId: crypto.randomUUID(),
    messages: [{ id: "m", role: "user", content: `hello ${i}` }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const headers = { "content-type": "application/json", accept: "text/event-stream", "x-user": `u${i}` };
  const t0 = performance.now();
  const res = await handle(new Request("http://bench/agui", { method: "POST", headers, body: JSON.stringify(body) }));
  const text = await res.text();
  if (!text.includes('"RUN_FINISHED"')) throw new Error(`a run did not finish: ${text.slice(-300)}`);
  return performance.now() - t0;
}

/** 100 threads' turns at once, half to each process: p50/p99 (ms), against a turn sent alone. */
async function threads() {
  const procs = await pgStore.processes(root);
  try {
    const hosted = { HOSTED: "1", SWEEP_MS: "1000" };
    const pairs = {
      "plain handler": await Promise.all([procs.start("A"), procs.start("B")]),
      "behind PostgresRunHost": await Promise.all([procs.start("C", hosted), procs.start("D", hosted)]),
    };
    const at = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
    const many = Math.max(1, Math.min(rounds, 5));
    const seen = Object.fromEntries(Object.keys(pairs).map((k) => [k, { alone: [], p50: [], p99: [] }]));
    // Rounds alternate the two deployments, so other load on the machine skews both alike.
    for (let round = -1; round < many; round++) {
      const order = Object.entries(pairs);
      if (round % 2) order.reverse();
      for (const [label, [a, b]] of order) {
        const once = [];
        for (let i = 0; i < 10; i++) once.push(await turn((i % 2 ? b : a).handle, i));
        const all = await Promise.all(Array.from({ length: 100 }, (_, i) => turn((i % 2 ? b : a).handle, i)));
        if (round < 0) continue; // warm-up
        seen[label].alone.push(at(once, 0.5));
        seen[label].p50.push(at(all, 0.5));
        seen[label].p99.push(at(all, 0.99));
      }
    }
    console.log(
      `\n100 threads at once on two processes, one PostgreSQL 15 cluster (${many} rounds, medians of rounds)`,
    );
    for (const [label, { alone, p50, p99 }] of Object.entries(seen)) {
      const [one, mid, tail] = [at(alone, 0.5), at(p50, 0.5), at(p99, 0.5)];
      console.log(
        `  ${label.padEnd(23)} p50 ${mid.toFixed(0).padStart(5)} ms, p99 ${tail.toFixed(0).padStart(5)} ms; one turn alone ${one.toFixed(1)} ms: ${(mid / one).toFixed(1)}× / ${(tail / one).toFixed(1)}×`,
      );
    }
  } finally {
    await procs.stop();
  }
}

await threads();
