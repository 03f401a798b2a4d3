#!/usr/bin/env node
// Makes sure a Chromium exists for the browser tests; installs Debian's package when run as root.
import { spawnSync } from "node:child_process";
import { findChromium } from "./chromium.mjs";

function run(cmd, args) {
  console.log(`ensure-chromium: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  return r.status === 0;
}

function fail(why) {
  console.error(`ensure-chromium: ${why}`);
  console.error(
    "ensure-chromium: to fix, install Debian's Chromium (as root: `apt-get update && apt-get install -y chromium`)\n" +
      "ensure-chromium: or set CHROMIUM_PATH to an existing Chromium/Chrome executable.",
  );
  process.exit(1);
}

let found;
try {
  found = await findChromium();
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
if (found) {
  console.log(`ensure-chromium: using ${found}`);
  process.exit(0);
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot) fail("no Chromium found, and not root, so cannot install it.");
// Try without an update first (fast when the lists are fresh), then with one.
if (!run("apt-get", ["install", "-y", "-q", "chromium"])) {
  if (!run("apt-get", ["update", "-q"]) || !run("apt-get", ["install", "-y", "-q", "chromium"])) {
    fail("apt-get could not install chromium.");
  }
}
found = await findChromium();
if (!found) fail("chromium was installed but is not on PATH.");
console.log(`ensure-chromium: installed ${found}`);
