#!/usr/bin/env node
// `npm run bench:peers [repetitions]`: the same tool loop (one `echo` call per model turn for N
// turns, then a text answer; scripted models, no network) on kaboo without hooks, kaboo with a
// full hook stack, Strands TS and OpenAI agents-core. Every measurement is its own process, the
// implementations interleaved, so no run inherits another's heap or JIT state.
// Prints median µs per cycle, the ratios, growth (N=1000 ÷ N=50, and ÷ N=5000 for kaboo) and peak RSS.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleTo } from "../bundle.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const reps = Math.max(1, Number(process.argv[2] ?? 5));

// The peers live in their own package so they never enter kaboo's dependency tree.
if (
  !existsSync(join(here, "node_modules/@strands-agents/sdk")) ||
  !existsSync(join(here, "node_modules/@openai/agents-core"))
) {
  console.log("Installing the peer SDKs in bench/peers …");
  execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit" });
}

mkdirSync(join(here, ".tmp"), { recursive: true });
const bundle = join(here, ".tmp/kaboo.mjs");
await bundleTo(
  `export { Agent, ScriptedModel, tool } from "./src/index.ts";
      export { ContextHook, EventPublisher, InterruptHook, MaxToolCallsGuard, StopGuard, ToolNameSanitizer } from "./src/hooks/index.ts";
      export * as z from "zod/v4";`,
  bundle,
);

const impls = ["kaboo-bare", "kaboo-full", "strands", "openai"];
const sizes = [50, 500, 1000, 5000];
const runsAt = (impl, n) => n < 5000 || impl.startsWith("kaboo");
const samples = new Map();

function measure(impl, n) {
  const out = execFileSync(process.execPath, [join(here, "child.mjs"), impl, String(n), bundle], {
    cwd: here,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const sample = JSON.parse(out.trim().split("\n").at(-1));
  const key = `${impl}@${n}`;
  samples.set(key, [...(samples.get(key) ?? []), sample]);
}

for (let r = 0; r < reps; r++) {
  // Rotated each repetition, so no implementation always runs first (or after the heaviest).
  const order = impls.map((_, i) => impls[(i + r) % impls.length]);
  for (const n of sizes) for (const impl of order) if (runsAt(impl, n)) measure(impl, n);
  process.stderr.write(`repetition ${r + 1}/${reps} done\n`);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const at = (metric, impl, n) => median(samples.get(`${impl}@${n}`).map((s) => s[metric]));
const fmt = (x, d = 0) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const names = {
  "kaboo-bare": "kaboo, no hooks",
  "kaboo-full": "kaboo, full hook stack",
  strands: "Strands TS",
  openai: "OpenAI agents-core",
};

function table(metric, title) {
  console.log(`\n${title}, median of ${reps}, one process per measurement (Node ${process.version}):\n`);
  console.log(
    "| N | Strands TS | OpenAI agents-core | kaboo, no hooks | kaboo, full hook stack | full ÷ Strands | full ÷ OpenAI |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const n of sizes) {
    const cell = (impl) => (runsAt(impl, n) ? fmt(at(metric, impl, n)) : "–");
    const ratio = (peer) => (runsAt(peer, n) ? `${fmt(at(metric, "kaboo-full", n) / at(metric, peer, n), 3)}×` : "–");
    console.log(
      `| ${fmt(n)} | ${cell("strands")} | ${cell("openai")} | ${cell("kaboo-bare")} | ${cell("kaboo-full")} | ${ratio("strands")} | ${ratio("openai")} |`,
    );
  }
  console.log("\n| Implementation | growth 50→1000 | growth 50→5000 |");
  console.log("|---|---:|---:|");
  for (const impl of ["strands", "openai", "kaboo-bare", "kaboo-full"]) {
    const growth = (n) => (runsAt(impl, n) ? `${fmt(at(metric, impl, n) / at(metric, impl, 50), 2)}×` : "–");
    console.log(`| ${names[impl]} | ${growth(1000)} | ${growth(5000)} |`);
  }
}

table("us", "Wall-clock µs per cycle");
// CPU time (all threads of the process) moves less than wall time when other work shares the cores.
table("cpu", "CPU µs per cycle");
console.log("\n| Implementation | peak RSS at 1000 cycles |");
console.log("|---|---:|");
for (const impl of ["strands", "openai", "kaboo-bare", "kaboo-full"]) {
  console.log(`| ${names[impl]} | ${fmt(at("rss", impl, 1000) / 2 ** 20, 1)} MB |`);
}
