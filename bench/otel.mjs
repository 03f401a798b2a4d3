#!/usr/bin/env node
// `node bench/otel.mjs [rounds]`: what TracingHook costs a tool loop, in one run, with interleaved rounds. Two
// figures per variant: the ratio of the best times (each variant's fastest round ÷ the fastest `none` round), and
// the median over rounds of the ratio within a round (each round times every variant back to back, so a slow
// spell of a loaded machine weighs on both sides of that ratio; the best times may come from different spells).
// One run = a model turn of 10 tool calls, then the final answer: two cycles, 13 spans when traced.
//   none:   the agent without the hook
//   empty:  a hook whose callbacks on the same six events do nothing (what subscribing alone costs)
//   noop:   the hook with the API's no-op tracer (no SDK registered): spans that record nothing
//   stub:   the hook with a tracer whose spans record and keep nothing (the hook's own work, no SDK cost)
//   batch:  the hook with the real trace SDK, a BatchSpanProcessor (as an app would export) and the
//           in-memory exporter, flushed after each batch of runs
//   simple: the same with a SimpleSpanProcessor (one export per span)
// Prints µs per cycle and the ratios to `none` (goals: noop ≤ 1.05×, with the in-memory exporter ≤ 1.3×); then,
// from CPU and allocation profiles of each variant, the hook's share of the run and the ratio it implies (a floor
// that the machine's other load skews much less than the times; see the end of this file). About 30 s.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { build } from "esbuild";
import { root } from "./bundle.mjs";

// Bundled inside the repository so that @opentelemetry/api stays external and resolves to the copy the SDK uses.
const dir = join(root, "node_modules", ".cache", "kaboo-bench-otel");
mkdirSync(dir, { recursive: true });
const outfile = join(dir, "bundle.mjs");
await build({
  stdin: {
    contents: `export * from "./src/index.ts"; export { TracingHook } from "./src/otel/index.ts"; export * as z from "zod/v4";`,
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  external: ["@opentelemetry/api"],
  outfile,
  logLevel: "error",
});
const bundleUrl = pathToFileURL(outfile).href;
const lib = await import(bundleUrl);
// Which source file each line of the bundle came from (esbuild heads each module with a `// <path>` comment).
const lineFile = [];
let file = "";
for (const line of readFileSync(outfile, "utf8").split("\n")) {
  const head = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line);
  if (head) file = head[1].includes("node_modules") ? "" : head[1].replace(/^(?:.*\/)?(?=src\/)/, "");
  lineFile.push(file);
}
rmSync(dir, { recursive: true, force: true });

const CALLS = 10;
const RUNS = 200;
const CYCLES = 2;
const rounds = Number(process.argv[2] ?? 15);
let seq = 0;

function agentWith(hooks) {
  const { ScriptedModel, tool, z } = lib;
  const echo = tool({
    name: "echo",
    description: "echo",
    inputSchema: z.object({ x: z.number(), to: z.string() }),
    callback: ({ x }) => `echo ${x}`,
  });
  const script = [
    () => ({
      toolCalls: Array.from({ length: CALLS }, (_, i) => ({
        name: "echo",
        input: { x: i, to: "bob" },
        id: `c${++seq}`,
      })),
    }),
    { text: "done" },
  ];
  return new lib.Agent({ model: new ScriptedModel({ script }), tools: [echo], hooks });
}

const exporter = new InMemorySpanExporter();
const simple = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const batch = new BasicTracerProvider({
  spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 8192, scheduledDelayMillis: 60_000 })],
});
const noop = trace.getTracer("bench"); // no global provider: the API's no-op tracer

// Flushed once per batch of runs, its time included: the in-memory exporter answers each export after a
// setTimeout(0), which a flush per run would add (a millisecond in Node) to every run.
const run = async (hooks, provider) => {
  for (let r = 0; r < RUNS; r++) {
    await agentWith(hooks()).invoke("go", { invocationState: { threadId: "bench" } });
    if (!provider) exporter.reset();
  }
  if (provider) await provider.forceFlush();
  exporter.reset();
};
// The tracer is got once, as an app does (the SDK looks a tracer up by name and version on every getTracer).
const traced = (provider) => {
  const tracer = provider.getTracer("bench");
  return () => [new lib.TracingHook({ tracer })];
};
// The same events with callbacks that do nothing: what subscribing alone costs, whatever a hook does.
const empty = {
  registerHooks(registry) {
    for (const event of [
      lib.BeforeInvocationEvent,
      lib.BeforeModelCallEvent,
      lib.AfterModelCallEvent,
      lib.BeforeToolCallEvent,
      lib.AfterToolCallEvent,
      lib.AfterInvocationEvent,
    ])
      registry.addCallback(event, () => undefined);
  },
};
// A tracer whose spans record but keep nothing: the hook's own work on a traced run, without the SDK's.
let stubIds = 0;
const stubTracer = {
  startSpan() {
    const sc = {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: (++stubIds).toString(16).padStart(16, "0"),
      traceFlags: 1,
    };
    const span = {
      spanContext: () => sc,
      isRecording: () => true,
      setAttribute: () => span,
      setAttributes: () => span,
      addEvent: () => span,
      addLink: () => span,
      addLinks: () => span,
      setStatus: () => span,
      updateName: () => span,
      recordException: () => undefined,
      end: () => undefined,
    };
    return span;
  },
  startActiveSpan() {
    throw new Error("not used by the hook");
  },
};
const variants = {
  none: () => run(() => []),
  empty: () => run(() => [empty]),
  noop: () => run(() => [new lib.TracingHook({ tracer: noop })]),
  stub: () => run(() => [new lib.TracingHook({ tracer: stubTracer })]),
  batch: () => run(traced(batch), batch),
  simple: () => run(traced(simple), simple),
};
await agentWith(traced(simple)()).invoke("go");
if (exporter.getFinishedSpans().length !== CALLS + 3) throw new Error("the traced run did not make its spans");
// Wall time, and the process's CPU time (all its threads, the collector's included), which a loaded machine
// skews less: time spent waiting for a core is not counted.
const names = Object.keys(variants);
const best = { wall: {}, cpu: {} };
const rounds$ = { wall: {}, cpu: {} }; // per variant, its time in each round
for (const name of names) {
  best.wall[name] = best.cpu[name] = Number.POSITIVE_INFINITY;
  rounds$.wall[name] = [];
  rounds$.cpu[name] = [];
}
for (const fn of Object.values(variants)) await fn(); // warm up
// Each round runs the variants in another order (shuffled, seeded: the same orders every time). The variant after
// the in-memory ones pays for part of their garbage: rotating a fixed order, as this bench did before, always put
// `none` right after `simple`, so `none` paid for garbage of the SDK's, and every ratio to it could look better.
let seed = 0x9e3779b9;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const shuffled = (xs) => {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};
for (let round = 0; round < rounds; round++) {
  for (const name of shuffled(names)) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await variants[name]();
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const cpu = (c.user + c.system) / 1000;
    best.wall[name] = Math.min(best.wall[name], wall);
    best.cpu[name] = Math.min(best.cpu[name], cpu);
    rounds$.wall[name].push(wall);
    rounds$.cpu[name].push(cpu);
  }
}
const perCycle = (ms) => ((ms * 1000) / (RUNS * CYCLES)).toFixed(1).padStart(7);
const ratio = (kind, name) => `${(best[kind][name] / best[kind].none).toFixed(3)}×`.padStart(7);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const paired = (kind, name) =>
  `${median(rounds$[kind][name].map((t, i) => t / rounds$[kind].none[i])).toFixed(3)}×`.padStart(7);
console.log(`${RUNS} runs × ${CYCLES} cycles (${CALLS} tool calls each run), best of ${rounds} interleaved rounds`);
console.log("                   best: wall µs/cycle  cpu µs/cycle  wall ÷ none  cpu ÷ none | round median: wall  cpu");
const rows = {
  none: "none (no hook)   ",
  empty: "6 empty callbacks",
  noop: "no-op tracer     ",
  stub: "recording stub   ",
  batch: "in-memory, batch ",
  simple: "in-memory, simple",
};
for (const [name, label] of Object.entries(rows))
  console.log(
    `${label}         ${perCycle(best.wall[name])}       ${perCycle(best.cpu[name])}      ${ratio("wall", name)}     ${ratio("cpu", name)} |          ${paired("wall", name)} ${paired("cpu", name)}`,
  );
console.log("goals: no-op ≤ 1.05×, in-memory ≤ 1.3×");

// The hook's share of the work, from profiles of each variant (taken after the timed rounds): the CPU profiler's
// samples in the hook's frames (its callbacks and whatever they call, the SDK's spans included; the registry
// running callbacks and registering them), and the (garbage collector) samples in the share of the bytes
// allocated under those frames (the sampling heap profiler, collected objects included). A share of the same
// profile is not skewed by the machine's other load as the times above are (a slow spell slows both parts),
// but it is a floor: it leaves out what the runner does only for a listener (its events kept, audit records
// handed to a watcher), the SDK's work outside the hook's calls (the flush after each batch of runs, the in-memory
// exporter's timers), and that spans kept until export cost GC more than their bytes say. Printed as share and as
// the ratio it implies, 1 ÷ (1 − share).
const isHookFrame = (f) =>
  f.url === bundleUrl &&
  (lineFile[f.lineNumber]?.startsWith("src/otel/") ||
    (lineFile[f.lineNumber] === "src/agent/hooks.ts" &&
      (f.functionName === "runFrom" || f.functionName === "addHook")));
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 200 });
const shares = {};
for (const name of names.filter((n) => n !== "none")) {
  await session.post("Profiler.start");
  for (let i = 0; i < 2; i++) await variants[name]();
  const { profile } = await session.post("Profiler.stop");
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hook = new Map(); // node id → whether it or a caller is a hook frame
  const visit = (node, under) => {
    const h = under || isHookFrame(node.callFrame);
    hook.set(node.id, h);
    for (const id of node.children ?? []) visit(byId.get(id), h);
  };
  visit(profile.nodes[0], false);
  const t = { total: 0, hook: 0, gc: 0 };
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const dt = profile.timeDeltas[i] ?? 0;
    if (node.callFrame.functionName === "(idle)") continue;
    t.total += dt;
    if (node.callFrame.functionName === "(garbage collector)") t.gc += dt;
    else if (hook.get(node.id)) t.hook += dt;
  }
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await variants[name]();
  const { profile: heap } = await session.post("HeapProfiler.stopSampling");
  const bytes = { total: 0, hook: 0 };
  const walk = (node, under) => {
    const h = under || isHookFrame(node.callFrame);
    bytes.total += node.selfSize;
    if (h) bytes.hook += node.selfSize;
    for (const child of node.children) walk(child, h);
  };
  walk(heap.head, false);
  const alloc = bytes.hook / bytes.total;
  shares[name] = { cpu: t.hook / t.total, alloc, share: (t.hook + t.gc * alloc) / t.total };
}
session.disconnect();
console.log(
  "\nthe hook's share of a profiled run: its frames' CPU, allocation, and with its share of GC → implied ratio",
);
for (const [name, x] of Object.entries(shares))
  console.log(
    `${rows[name]}   cpu ${(x.cpu * 100).toFixed(1).padStart(5)}%   allocated ${(x.alloc * 100).toFixed(1).padStart(5)}%   share ${(x.share * 100).toFixed(1).padStart(5)}%  → ${(1 / (1 - x.share)).toFixed(3)}×`,
  );
