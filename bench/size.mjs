#!/usr/bin/env node
// `npm run bench:size`: min+gzip bytes of every package entry and of a typical app slice as an app
// ships them (esbuild, ESM, platform neutral, dependencies included, code splitting), with the zod a new
// install resolves: zod 4 for `npm install kaboo-workflows zod`, zod 3.25 once the app adds
// `@ag-ui/client` (which requires it). Beside them zod/v4 bundled the same way, as a yardstick.
// Reads the entries from package.json "exports"; builds dist/ first when it is missing.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { measure, optionalPeers, root, sliceSource, TOOL_KINDS, zodVersion } from "./size-lib.mjs";

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const peers = optionalPeers();

/** The built file an "exports" target points at (the ESM import condition). */
function target(value) {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") return target(value.import ?? value.default ?? value.browser ?? value.module);
  return undefined;
}

const entries = Object.entries(pkg.exports)
  .filter(([name]) => name !== "./package.json" && !name.includes("*"))
  .map(([name, value]) => ({ name, file: target(value) }))
  .filter((e) => e.file?.endsWith(".js"));

if (!existsSync(join(root, "dist/index.js"))) {
  console.log("dist/ is missing: building it first.");
  execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" });
}

const zods = ["4", "3"];
const rows = [];
async function row(label, contents, options = {}) {
  const cells = {};
  for (const zod of zods) cells[zod] = await measure(contents, { ...options, zod, loader: "js" });
  rows.push({ label, cells });
}

for (const { name, file } of entries) {
  const isAgui = /agui/.test(name);
  const external = isAgui ? [...peers, "@ag-ui/client", "@ag-ui/*"] : peers;
  const label = `kaboo-workflows${name === "." ? "" : name.slice(1)}${isAgui ? " (beyond @ag-ui/client)" : ""}`;
  await row(label, `export * from "${file}";`, { external });
  if (name === ".")
    await row("kaboo-workflows, own code only (zod external)", `export * from "${file}";`, {
      external: [...external, "zod", "zod/*", "zod4", "zod4/*"],
    });
}
// Loaded on demand: the runner (the loop, model calls, tool batches, the ledger's steps), EventPublisher's
// lifecycle events and ContextHook's rewrite (all three with the first run), the glob engine (the first glob
// pattern), the approval gate's steps (the first call a rule covers), grant matching (a run that sends
// grants) and signature checks (a gate with a secret), four-eyes approvals (the first rule with
// `approvals`), ContextHook's views (a hook with views), and media trimming (a model request over its
// media budget).
for (const tools of Object.keys(TOOL_KINDS)) {
  await row(`typical app slice, ${tools} tools`, sliceSource(tools, "dist"), { external: peers });
}
await row("yardstick: zod/v4 alone", 'export * from "zod/v4";');

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const head = zods.map((z) => `zod ${zodVersion(z)}`);
console.log(
  "\nmin+gzip, what loads with the page (+ what loads later, on first use: the runner, EventPublisher's" +
    " lifecycle events, ContextHook's rewrite, the glob engine, the approval gate's steps, grant matching and" +
    " signing, four eyes, views, media trimming)\n",
);
console.log(`| bundle | ${head.join(" | ")} |`);
console.log(`|---|${zods.map(() => "---:").join("|")}|`);
for (const r of rows) {
  const cell = (z) => {
    const c = r.cells[z];
    return `${kib(c.gzip)}${c.lazyGzip ? ` (+${kib(c.lazyGzip)})` : ""}`;
  };
  console.log(`| ${r.label} | ${zods.map(cell).join(" | ")} |`);
}
console.log(
  `\nzod ${zodVersion("4")}: what \`npm install kaboo-workflows zod\` resolves; zod ${zodVersion("3")}: what it resolves with @ag-ui/client 1.x.`,
);
