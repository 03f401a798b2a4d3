#!/usr/bin/env node
// `node bench/otel.mjs [rounds]`: what TracingHook costs a tool loop, in one run, with interleaved rounds and
// the best time of each variant kept (other load on the machine skews little). One run = a model turn of
// 10 tool calls, then the final answer: two cycles, 13 spans when traced.
//   none:   the agent without the hook
//   noop:   the hook with the API's no-op tracer (no SDK registered): spans that record nothing
//   batch:  the hook with the real trace SDK, a BatchSpanProcessor (as an app would export) and the
//           in-memory exporter, flushed after each batch of runs
//   simple: the same with a SimpleSpanProcessor (one export per span)
// Prints µs per cycle and the ratios to `none` (goals: noop ≤ 1.05×, with the in-memory exporter ≤ 1.3×).
import { mkdirSync, rmSync } from "node:fs";
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
const lib = await import(pathToFileURL(outfile).href);
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
const traced = (provider) => () => [new lib.TracingHook({ tracer: provider.getTracer("bench") })];
const variants = {
  none: () => run(() => []),
  noop: () => run(() => [new lib.TracingHook({ tracer: noop })]),
  batch: () => run(traced(batch), batch),
  simple: () => run(traced(simple), simple),
};
await agentWith(traced(simple)()).invoke("go");
if (exporter.getFinishedSpans().length !== CALLS + 3) throw new Error("the traced run did not make its spans");
const best = Object.fromEntries(Object.keys(variants).map((k) => [k, Number.POSITIVE_INFINITY]));
for (const fn of Object.values(variants)) await fn(); // warm up
for (let round = 0; round < rounds; round++) {
  for (const [name, fn] of Object.entries(variants)) {
    const t0 = performance.now();
    await fn();
    best[name] = Math.min(best[name], performance.now() - t0);
  }
}
const perCycle = (ms) => (ms * 1000) / (RUNS * CYCLES);
console.log(`${RUNS} runs × ${CYCLES} cycles (${CALLS} tool calls each run), best of ${rounds} interleaved rounds`);
console.log(`none (no hook)          ${perCycle(best.none).toFixed(1)} µs/cycle`);
console.log(`no-op tracer            ${perCycle(best.noop).toFixed(1)} µs/cycle`);
console.log(`in-memory, batch        ${perCycle(best.batch).toFixed(1)} µs/cycle`);
console.log(`in-memory, simple       ${perCycle(best.simple).toFixed(1)} µs/cycle`);
console.log(`no-op / none            ${(best.noop / best.none).toFixed(3)}×  (goal ≤ 1.05)`);
console.log(`in-memory batch / none  ${(best.batch / best.none).toFixed(3)}×  (goal ≤ 1.3)`);
console.log(`in-memory simple / none ${(best.simple / best.none).toFixed(3)}×`);
