#!/usr/bin/env node
// `node bench/peers/profile.mjs [n] [variant]`: a CPU profile of kaboo's loop at n cycles (default
// 5000, the full hook stack) and its top functions by self time. Run `npm run bench:peers` once
// first: it builds the bundle this profiles.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const n = process.argv[2] ?? "5000";
const variant = process.argv[3] ?? "kaboo-full";
const dir = mkdtempSync(join(tmpdir(), "kaboo-prof-"));
const child = join(here, "child.mjs");
const out = execFileSync(process.execPath, [
  "--cpu-prof",
  `--cpu-prof-dir=${dir}`,
  child,
  variant,
  n,
  join(here, ".tmp/kaboo.mjs"),
]);
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
const profile = JSON.parse(readFileSync(join(dir, file), "utf8"));
rmSync(dir, { recursive: true, force: true });

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  const key = `${functionName || "(anonymous)"} ${url.split("/").at(-1)}:${lineNumber + 1}`;
  const dt = profile.timeDeltas[i] ?? 0;
  self.set(key, (self.get(key) ?? 0) + dt);
  total += dt;
});
console.log(`${variant}, ${n} cycles: ${out.toString().trim()}; ${(total / 1000).toFixed(0)} ms profiled\n`);
console.log("| self % | self ms | function |\n|---:|---:|---|");
for (const [key, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
  console.log(`| ${((100 * t) / total).toFixed(1)} | ${(t / 1000).toFixed(1)} | \`${key}\` |`);
}
