#!/usr/bin/env node
// `npm test`: every check in order, stopping at the first that fails.
// ensure Chromium -> format and lint -> typecheck src (Web types only) -> typecheck tests -> docs check -> build -> demo size -> vitest (unit, edge-postgres,
// browser, runtimes) -> e2e (the demo in Chromium). Ends with one plain "N passed, N failed" line.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules/.bin", name);
const reportDir = join(root, ".tmp");
const totals = { passed: 0, failed: 0, skipped: 0 };

function step(title, cmd, args, report) {
  const started = Date.now();
  console.log(`\n=== npm test: ${title}\n$ ${[cmd, ...args].join(" ")}`);
  const r = spawnSync(cmd, args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0") },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    // Count the failing step's report before leaving, so the closing line says how many failed.
    if (report) countFrom(report);
    console.error(
      `\n=== npm test: FAILED at "${title}" (exit ${r.status ?? r.signal}, ${seconds}s). Later steps were not run.`,
    );
    printTotals();
    process.exit(r.status || 1);
  }
  console.log(`=== npm test: ${title}: ok (${seconds}s)`);
}

function countFrom(report) {
  if (!existsSync(report)) return;
  const json = JSON.parse(readFileSync(report, "utf8"));
  totals.passed += json.numPassedTests ?? 0;
  totals.failed += json.numFailedTests ?? 0;
  totals.skipped += (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
}

function printTotals() {
  console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
}

function vitest(title, projects, report) {
  const args = [
    "run",
    ...projects.flatMap((p) => ["--project", p]),
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ];
  step(title, bin("vitest"), args, report);
  countFrom(report);
}

mkdirSync(reportDir, { recursive: true });
step("ensure Chromium", process.execPath, [join(root, "scripts/ensure-chromium.mjs")]);
step("format and lint (biome ci)", bin("biome"), ["ci", "."]);
step("typecheck src (Web APIs only, no @types/node)", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
step("typecheck tests, demo and configs", bin("tsc"), ["-p", "tsconfig.test.json"]);
step("docs: code blocks type-check, links resolve", process.execPath, [join(root, "scripts/check-docs.mjs")]);
step("build dist/", process.execPath, [join(root, "scripts/build.mjs")]);
// The demo's production build: the JavaScript loaded at start stays within its budget.
step("demo start-up JS ≤ 100 KiB gzip", process.execPath, [join(root, "bench/demo-size.mjs"), "--budget=100"]);
vitest(
  "vitest: unit, edge-postgres, browser, runtimes",
  ["unit", "edge-postgres", "browser", "runtimes"],
  join(reportDir, "vitest.json"),
);
const hasE2e =
  existsSync(join(root, "e2e")) &&
  readdirSync(join(root, "e2e"), { recursive: true }).some((f) => String(f).endsWith(".e2e.test.ts"));
if (hasE2e) vitest("e2e: the demo in Chromium", ["e2e"], join(reportDir, "vitest-e2e.json"));
else console.log("\n=== npm test: no e2e/*.e2e.test.ts, e2e skipped");
printTotals();
if (totals.passed === 0) {
  console.error("npm test: no test ran.");
  process.exit(1);
}
