#!/usr/bin/env node
// `npm run bench:size`: bytes of every package entry as an app would ship it — bundled with
// esbuild (ESM, platform neutral, dependencies included), raw / minified / minified+gzip —
// beside zod/v4 bundled the same way as a yardstick. Reads the entries from package.json "exports".
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

// Optional peers are the app's own choice, so they are never counted.
const optionalPeers = Object.entries(pkg.peerDependenciesMeta ?? {})
  .filter(([, m]) => m?.optional)
  .map(([name]) => name);
const alwaysExternal = [...new Set([...optionalPeers, "@modelcontextprotocol/sdk"])];

/** The built file an "exports" target points at (the ESM import condition). */
function target(value) {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") return target(value.import ?? value.default ?? value.browser ?? value.module);
  return undefined;
}

function entries() {
  const exp = pkg.exports;
  if (!exp) return [{ name: ".", file: "./dist/index.js" }];
  if (typeof exp === "string" || !Object.keys(exp).some((k) => k.startsWith("."))) return [{ name: ".", file: target(exp) }];
  return Object.entries(exp)
    .filter(([name]) => name !== "./package.json" && !name.includes("*"))
    .map(([name, value]) => ({ name, file: target(value) }))
    .filter((e) => e.file?.endsWith(".js") || e.file?.endsWith(".mjs"));
}

const common = {
  bundle: true,
  write: false,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  target: "es2022",
  legalComments: "none",
  logLevel: "silent",
};

async function bundle(options, minify) {
  const result = await build({ ...options, ...common, minify });
  return result.outputFiles[0].contents;
}

async function measure(label, options) {
  const raw = await bundle(options, false);
  const min = await bundle(options, true);
  const gz = gzipSync(min, { level: 9 });
  return { label, raw: raw.byteLength, min: min.byteLength, gzip: gz.byteLength };
}

if (!existsSync(join(root, "dist/index.js"))) {
  console.log("dist/ is missing: building it first.");
  execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" });
}

const rows = [];
for (const { name, file } of entries()) {
  const path = join(root, file);
  if (!existsSync(path)) {
    console.log(`skipped ${name}: ${file} is not built`);
    continue;
  }
  const isAgui = /agui/.test(name);
  const external = isAgui ? [...alwaysExternal, "@ag-ui/client", "@ag-ui/*"] : alwaysExternal;
  const label = `kaboo-workflows${name === "." ? "" : name.slice(1)}${isAgui ? " (beyond @ag-ui/client)" : ""}`;
  rows.push(await measure(label, { entryPoints: [path], external }));
  if (name === ".")
    rows.push(
      await measure("kaboo-workflows, own code only (zod external)", {
        entryPoints: [path],
        external: [...external, "zod", "zod/*"],
      }),
    );
}
// The slice a typical app imports: an agent, a tool, an approval gate and the usual guards. The same
// code with zod tools and with valibot tools (its JSON Schema from @valibot/to-json-schema, or given
// as the jsonSchema option), so the valibot rows show what the package costs an app without zod.
// Bundled with code splitting, as an app's bundler does: "initial" is what loads with the page;
// minimatch is imported only when a hook meets a glob pattern, and is reported as the lazy part.
const slice = (schemaImport, toolSchema) => `
import { Agent, tool } from "./dist/index.js";
import { InterruptHook, MaxToolCallsGuard, ToolNameSanitizer, ContextHook, StopGuard, EventPublisher } from "./dist/hooks/index.js";
${schemaImport}
export const weather = tool({ name: "weather", description: "Weather", ${toolSchema}, callback: ({ city }) => city });
export const hooks = [InterruptHook, MaxToolCallsGuard, ToolNameSanitizer, ContextHook, StopGuard, EventPublisher];
export { Agent };
`;
const slices = [
  ["zod tools (zod/v4)", 'import * as z from "zod/v4";', "inputSchema: z.object({ city: z.string() })"],
  ["zod tools (zod/v4/mini)", 'import * as z from "zod/v4/mini";', "inputSchema: z.object({ city: z.string() })"],
  [
    "valibot tools (toStandardJsonSchema)",
    'import * as v from "valibot"; import { toStandardJsonSchema } from "@valibot/to-json-schema";',
    "inputSchema: toStandardJsonSchema(v.object({ city: v.string() }))",
  ],
  [
    "valibot tools (jsonSchema option)",
    'import * as v from "valibot";',
    "inputSchema: v.object({ city: v.string() }), jsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }",
  ],
];
for (const [label, schemaImport, toolSchema] of slices) {
  const options = {
    stdin: { contents: slice(schemaImport, toolSchema), resolveDir: root, loader: "js" },
    external: alwaysExternal,
  };
  const split = async (minify) => {
    const result = await build({ ...options, ...common, minify, splitting: true, outdir: join(root, ".tmp/size") });
    const initial = result.outputFiles.find((f) => f.path.endsWith("stdin.js")).contents;
    const lazy = result.outputFiles.filter((f) => !f.path.endsWith("stdin.js")).map((f) => f.contents);
    return { initial, lazy };
  };
  const raw = await split(false);
  const min = await split(true);
  rows.push({
    label: `typical app slice, ${label}: initial`,
    raw: raw.initial.byteLength,
    min: min.initial.byteLength,
    gzip: gzipSync(min.initial, { level: 9 }).byteLength,
  });
  const sum = (parts, f) => parts.reduce((n, p) => n + f(p), 0);
  rows.push({
    label: `typical app slice, ${label}: lazy (globs)`,
    raw: sum(raw.lazy, (p) => p.byteLength),
    min: sum(min.lazy, (p) => p.byteLength),
    gzip: sum(min.lazy, (p) => gzipSync(p, { level: 9 }).byteLength),
  });
}
const baseline = await measure("baseline: zod/v4 alone", {
  stdin: { contents: 'export * from "zod/v4";', resolveDir: root, loader: "js" },
});
rows.push(baseline);

const kb = (n) => `${(n / 1024).toFixed(1)} KiB`.padStart(10);
const width = Math.max(...rows.map((r) => r.label.length));
console.log(
  `\n${"bundle".padEnd(width)}  ${"raw".padStart(10)}  ${"minified".padStart(10)}  ${"min+gzip".padStart(10)}  ${"bytes gz".padStart(9)}  vs zod/v4`,
);
for (const r of rows) {
  const ratio = (r.gzip / baseline.gzip).toFixed(2);
  console.log(`${r.label.padEnd(width)}  ${kb(r.raw)}  ${kb(r.min)}  ${kb(r.gzip)}  ${String(r.gzip).padStart(9)}  ${ratio}x`);
}
