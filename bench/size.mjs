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

async function bundle(options, minify) {
  const result = await build({
    ...options,
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    minify,
    legalComments: "none",
    logLevel: "silent",
  });
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
// code once with a zod tool and once with a valibot tool, so the second shows what the package costs
// an app that does not use zod itself.
const slice = (schemaImport, schema) => `
import { Agent, tool } from "./dist/index.js";
import { InterruptHook, MaxToolCallsGuard, ToolNameSanitizer, ContextHook, StopGuard, EventPublisher } from "./dist/hooks/index.js";
${schemaImport}
export const weather = tool({ name: "weather", description: "Weather", inputSchema: ${schema}, callback: ({ city }) => city });
export const hooks = [InterruptHook, MaxToolCallsGuard, ToolNameSanitizer, ContextHook, StopGuard, EventPublisher];
export { Agent };
`;
rows.push(
  await measure("typical app slice, zod tools (zod/v4)", {
    stdin: { contents: slice('import * as z from "zod/v4";', "z.object({ city: z.string() })"), resolveDir: root, loader: "js" },
  }),
);
rows.push(
  await measure("typical app slice, valibot tools", {
    stdin: {
      contents: slice(
        'import * as v from "valibot"; import { toStandardJsonSchema } from "@valibot/to-json-schema";',
        "toStandardJsonSchema(v.object({ city: v.string() }))",
      ),
      resolveDir: root,
      loader: "js",
    },
  }),
);
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
