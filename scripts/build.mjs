#!/usr/bin/env node
// `npm run build`: a clean dist/ from src/ (ESM, .d.ts, one file per source file).
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(root, "dist"), { recursive: true, force: true });
const r = spawnSync(join(root, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit",
});
process.exit(r.status ?? 1);
