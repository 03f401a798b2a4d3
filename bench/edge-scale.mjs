#!/usr/bin/env node
// `node bench/edge-scale.mjs`: the Durable Object scale run of test/runtimes/edge-scale.test.ts
// (100 threads paused at once, then each resumed twice at once, through the Cloudflare Worker
// example in miniflare) and its figures: executions, cross-talk, p50/p99 per request, and the
// same pause request alone for scale. KABOO_SCALE_THREADS changes the thread count.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
spawnSync(join(root, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
const r = spawnSync(
  join(root, "node_modules/.bin/vitest"),
  ["run", "--project", "runtimes", "test/runtimes/edge-scale.test.ts", "--reporter=dot"],
  { cwd: root, stdio: "inherit" },
);
if (r.status !== 0) process.exit(r.status ?? 1);
console.log(readFileSync(join(root, ".tmp/edge-scale.json"), "utf8"));
