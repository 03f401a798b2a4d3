// One measurement in a fresh process: `node child.mjs <impl> <n> <kaboo bundle>`. Warms up with a
// 200-cycle run (so short runs are timed warm too, and growth is not flattered by a cold start),
// times one n-cycle run, and prints `{ us, cpu, rss }`: wall and CPU µs per cycle, peak RSS in bytes.
import { pathToFileURL } from "node:url";

const [impl, nArg, bundle] = process.argv.slice(2);
const n = Number(nArg);

async function load() {
  if (impl === "strands") return (await import("./strands.mjs")).make();
  if (impl === "openai") return (await import("./openai.mjs")).make();
  const lib = await import(pathToFileURL(bundle).href);
  return (await import("./kaboo.mjs")).make(lib, impl === "kaboo-full" ? "full" : "bare");
}

const run = await load();
await run(200);
const cpu0 = process.cpuUsage();
const started = performance.now();
await run(n);
const us = ((performance.now() - started) * 1000) / n;
const { user, system } = process.cpuUsage(cpu0);
process.stdout.write(`${JSON.stringify({ us, cpu: (user + system) / n, rss: process.resourceUsage().maxRSS * 1024 })}\n`);
