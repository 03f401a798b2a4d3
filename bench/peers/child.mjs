// One measurement in a fresh process: `node child.mjs <impl> <n> <kaboo bundle>`. Warms up with a
// 200-cycle run and (up to n = 500) one n-cycle run, then times max(1, 1000 / n) n-cycle runs and
// prints the median: wall and CPU µs per cycle, and the process's peak RSS in bytes. Several runs of a
// short loop keep one-off costs (JIT, a GC) from passing for per-cycle cost, which would make growth
// look flatter than it is.
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
if (n <= 500) await run(n);
const runs = [];
for (let k = Math.max(1, Math.floor(1000 / n)); k > 0; k--) {
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await run(n);
  const wall = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu0);
  runs.push({ us: (wall * 1000) / n, cpu: (user + system) / n });
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const sample = {
  us: median(runs.map((r) => r.us)),
  cpu: median(runs.map((r) => r.cpu)),
  rss: process.resourceUsage().maxRSS * 1024,
};
process.stdout.write(`${JSON.stringify(sample)}\n`);
