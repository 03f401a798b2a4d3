#!/usr/bin/env node
// `node bench/durable-runs.mjs [rounds]`: the cost of runs that belong to their thread.
// 1. Worker first byte (workerd, miniflare): a run hosted in its thread's Durable Object
//    (forwardToThread → KabooThread → the handler on the object's own SQLite store → RUN_STARTED)
//    against a Worker that makes one Durable Object call and answers. Interleaved, medians, one run.
// 2. Reconnect to the first missed event (Node, MemoryThreadStore): a client that dropped a run after
//    event 5 reattaches with Last-Event-ID; time to its first frame, against a new run's first frame.
// 3. The event log's cost per run (Node, MemoryThreadStore): storage writes per run, and wall time
//    of the same run with the log and without it (a store without the log methods).
import { Miniflare } from "miniflare";
import { bundleTo, importBundle } from "./bundle.mjs";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const rounds = Number(process.argv[2] ?? 40);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const body = (threadId, text = "hello") =>
  JSON.stringify({
    threadId,
    runId: crypto.randomUUID(),
    messages: [{ id: `u-${crypto.randomUUID()}`, role: "user", content: text }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });

async function firstByte(url, init) {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const reader = res.body.getReader();
  await reader.read();
  const t = performance.now() - t0;
  await reader.cancel();
  return t;
}

// --- 1. Worker first byte ---------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), "kaboo-bench-durable-"));
const workerFile = await bundleTo(
  `import { createAguiHandler, forwardToThread } from "./src/agui/index.ts";
  import { Agent, ScriptedModel } from "./src/index.ts";
  import { KabooThread as Base } from "./src/stores/durable-object.ts";
  export class KabooThread extends Base {
    constructor(ctx, env) {
      super(ctx, env, { handler: (store) => createAguiHandler({ stores: { thread: store }, agent: () => new Agent({ model: new ScriptedModel({ script: () => ({ text: "hi" }) }) }) }) });
    }
  }
  export class Echo {
    constructor(ctx) { this.sql = ctx.storage.sql; this.sql.exec("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v TEXT)"); }
    async fetch(request) {
      const headers = { "content-type": "text/event-stream" };
      if (new URL(request.url).pathname === "/write") {
        // One durable write before answering: what taking a thread costs at the least.
        this.sql.exec("INSERT INTO t (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", "lease", String(Date.now()));
        return new Response("data: ok\\n\\n", { headers });
      }
      if (new URL(request.url).pathname !== "/stream") return new Response("data: ok\\n\\n", { headers });
      // The same answer as a stream left open, as an SSE run's is.
      const body = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode("data: ok\\n\\n")); setTimeout(() => c.close(), 50); } });
      return new Response(body, { headers });
    }
  }
  export default {
    async fetch(request, env) {
      const url = new URL(request.url);
      if (url.pathname === "/one-call" || url.pathname === "/one-call-stream" || url.pathname === "/one-write") {
        const text = await request.text();
        const id = JSON.parse(text).threadId;
        const path = { "/one-call": "/", "/one-call-stream": "/stream", "/one-write": "/write" }[url.pathname];
        return env.ECHO.get(env.ECHO.idFromName(id)).fetch("https://echo" + path, { method: "POST", body: text });
      }
      return forwardToThread(request, env.THREAD);
    },
  };`,
  join(dir, "worker.mjs"),
);
const mf = new Miniflare({
  modules: true,
  script: readFileSync(workerFile, "utf8"),
  compatibilityDate: "2025-04-01",
  durableObjects: {
    THREAD: { className: "KabooThread", useSQLite: true },
    ECHO: { className: "Echo", useSQLite: true },
  },
  port: 0,
  host: "127.0.0.1",
});
const base = (await mf.ready).toString().replace(/\/$/, "");
const post = (b) => ({ method: "POST", headers: { "content-type": "application/json" }, body: b });
for (let i = 0; i < 5; i++) {
  await firstByte(`${base}/one-call`, post(body(`w${i}`)));
  await firstByte(`${base}/agui`, post(body(`w${i}`)));
}
const oneCall = [];
const oneStream = [];
const oneWrite = [];
const hosted = [];
for (let i = 0; i < rounds; i++) {
  // A fresh thread each time (a first turn), its object already up in both cases (a first request
  // to a new object also creates its tables: measured apart below).
  await firstByte(`${base}/one-call`, post(body(`b${i}`)));
  await (await fetch(`${base}/agui`, post(JSON.stringify({ kaboo_connect: { threadId: `h${i}` } })))).text();
  oneCall.push(await firstByte(`${base}/one-call`, post(body(`b${i}`))));
  oneStream.push(await firstByte(`${base}/one-call-stream`, post(body(`b${i}`))));
  oneWrite.push(await firstByte(`${base}/one-write`, post(body(`b${i}`))));
  hosted.push(await firstByte(`${base}/agui`, post(body(`h${i}`))));
}
const coldOne = [];
const coldHosted = [];
for (let i = 0; i < rounds; i++) {
  coldOne.push(await firstByte(`${base}/one-call`, post(body(`cb${i}`))));
  coldHosted.push(await firstByte(`${base}/agui`, post(body(`ch${i}`))));
}
await mf.dispose();
rmSync(dir, { recursive: true, force: true });

// --- 2 and 3, in Node ---------------------------------------------------------------------------
const { createAguiHandler, Agent, ScriptedModel, MemoryThreadStore } = await importBundle(
  `export { createAguiHandler } from "./src/agui/index.ts";
  export { Agent, ScriptedModel } from "./src/index.ts";
  export { MemoryThreadStore } from "./src/stores/memory.ts";`,
);
const story = () =>
  new Agent({ model: new ScriptedModel({ script: () => ({ text: "a long story ".repeat(200) }), chunkSize: 8 }) });
const quiet = { warn() {}, error() {} };
const request = (b, headers = {}) =>
  new Request("http://edge/agui", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: b,
  });

async function frames(res, limit = Infinity) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let ids = [];
  while (ids.length < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    ids = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
  }
  await reader.cancel().catch(() => undefined);
  return ids;
}

const store = new MemoryThreadStore();
const handle = createAguiHandler({ stores: { thread: store }, agent: story, logger: quiet });
const reconnect = [];
const fresh = [];
for (let i = 0; i < rounds; i++) {
  const t0 = performance.now();
  const ids = await frames(await handle(request(body(`r${i}`))), 5);
  fresh.push(performance.now() - t0);
  const t1 = performance.now();
  const res = await handle(
    request(JSON.stringify({ kaboo_connect: { threadId: `r${i}` } }), { "last-event-id": ids.at(-1) }),
  );
  await frames(res, 1);
  reconnect.push(performance.now() - t1);
}

let writes = 0;
const logged = new MemoryThreadStore();
const counting = {
  load: (t) => logged.load(t),
  compareAndSet: (t, v, d) => logged.compareAndSet(t, v, d),
  ledger: (t) => logged.ledger(t),
  readEvents: (...a) => logged.readEvents(...a),
  compactEvents: (...a) => logged.compactEvents(...a),
  appendEvents: (...a) => {
    writes++;
    return logged.appendEvents(...a);
  },
};
const plain = new MemoryThreadStore();
const unlogged = {
  load: (t) => plain.load(t),
  compareAndSet: (t, v, d) => plain.compareAndSet(t, v, d),
  ledger: (t) => plain.ledger(t),
};
const withLog = createAguiHandler({ stores: { thread: counting }, agent: story, logger: quiet });
const withoutLog = createAguiHandler({ stores: { thread: unlogged }, agent: story, logger: quiet });
const whole = async (h, t) => {
  const t0 = performance.now();
  const ids = await frames(await h(request(body(t))));
  return { ms: performance.now() - t0, events: ids.length };
};
for (let i = 0; i < 5; i++) {
  await whole(withLog, `wl${i}`);
  await whole(withoutLog, `wo${i}`);
}
writes = 0;
const logTimes = [];
const plainTimes = [];
let events = 0;
for (let i = 0; i < rounds; i++) {
  const a = await whole(withLog, `l${i}`);
  const b = await whole(withoutLog, `n${i}`);
  logTimes.push(a.ms);
  plainTimes.push(b.ms);
  events = a.events;
}
// Let the last batches land before counting.
await new Promise((r) => setTimeout(r, 100));

const f = (x) => x.toFixed(2);
console.log(`rounds: ${rounds}`);
console.log(
  `1. Worker first byte (workerd): hosted run ${f(median(hosted))} ms, one DO call ${f(median(oneCall))} ms → ratio ${f(median(hosted) / median(oneCall))}× (goal ≤ 1.2×)`,
);
console.log(
  `   against one DO call that streams its answer: ${f(median(oneStream))} ms → ratio ${f(median(hosted) / median(oneStream))}×`,
);
console.log(
  `   against one DO call that writes one row first: ${f(median(oneWrite))} ms → ratio ${f(median(hosted) / median(oneWrite))}×`,
);
console.log(
  `   to a new object: hosted run ${f(median(coldHosted))} ms, one DO call ${f(median(coldOne))} ms → ratio ${f(median(coldHosted) / median(coldOne))}×`,
);
console.log(
  `2. Reconnect to the first missed event: ${f(median(reconnect))} ms; a new run's first 5 events: ${f(median(fresh))} ms → ratio ${f(median(reconnect) / median(fresh))}×`,
);
console.log(
  `3. Event log: ${f(writes / rounds)} storage writes per run of ${events} events; wall time with log ${f(median(logTimes))} ms, without ${f(median(plainTimes))} ms → ratio ${f(median(logTimes) / median(plainTimes))}× (goal ≤ 1.2×)`,
);
