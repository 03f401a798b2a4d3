#!/usr/bin/env node
// `npm run docs` (build) and `npm run docs -- --dev` (`npm run docs:dev`): the API reference from the TSDoc,
// then the VitePress site. TypeDoc needs TypeScript 6 or older and the package uses 7, so TypeDoc lives in its
// own project, docs/api/, installed from its lockfile on first use (as bench/peers/ is for the peer SDKs).
// One reference page per package entry (package.json `exports`), written to docs/reference/ (not in git).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const apiProject = join(root, "docs/api");
const out = join(root, "docs/reference");
const dev = process.argv.includes("--dev");
const run = (cmd, args, cwd = root) => execFileSync(cmd, args, { cwd, stdio: "inherit" });

/** Each entry's source file, from package.json `exports` (`./dist/x/index.js` → `src/x/index.ts`). */
export function entrySources() {
  const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  return Object.values(exports)
    .filter((v) => typeof v === "object")
    .map((v) => v.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
}

if (!existsSync(join(apiProject, "node_modules/.bin/typedoc"))) {
  run("npm", ["ci", "--no-audit", "--no-fund"], apiProject);
}
rmSync(out, { recursive: true, force: true });
run(join(apiProject, "node_modules/.bin/typedoc"), [
  "--options",
  join(apiProject, "typedoc.json"),
  "--entryPoints",
  ...entrySources(),
  "--out",
  out,
]);
run(join(root, "node_modules/.bin/vitepress"), [dev ? "dev" : "build", "docs"]);
