#!/usr/bin/env node
// `npm run bench:demo-size`: the demo's production build (vite), and the JavaScript a person's browser
// loads at start: the entry chunk and every chunk it imports statically (lazy chunks such as a real
// model's provider are left out), each minified by vite and gzipped at level 9, summed.
// `--budget=<KiB>` exits 1 above it (npm test runs it with the demo's budget, 100 KiB).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "vite";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, ".tmp/demo-size");

/**
 * Builds the demo and returns its start-up chunks with their gzip sizes.
 * @returns {Promise<{ files: { file: string, gzip: number }[], gzip: number }>}
 */
export async function demoStartSize() {
  await build({
    configFile: join(root, "vite.config.ts"),
    logLevel: "silent",
    build: { outDir, emptyOutDir: true, manifest: "manifest.json" },
  });
  const manifest = JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8"));
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
  const seen = new Set();
  const walk = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const dep of manifest[key].imports ?? []) walk(dep);
  };
  walk(entry);
  const files = [...seen]
    .map((k) => manifest[k].file)
    .filter((f) => f.endsWith(".js"))
    .map((file) => ({ file, gzip: gzipSync(readFileSync(join(outDir, file)), { level: 9 }).byteLength }));
  return { files, gzip: files.reduce((sum, f) => sum + f.gzip, 0) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const budget = Number(process.argv.find((a) => a.startsWith("--budget="))?.split("=")[1] ?? Number.NaN);
  const { files, gzip } = await demoStartSize();
  for (const f of files) console.log(`${(f.gzip / 1024).toFixed(1).padStart(7)} KiB  ${f.file}`);
  console.log(`${(gzip / 1024).toFixed(1).padStart(7)} KiB  start-up JS of the demo (gzip)`);
  if (Number.isFinite(budget) && gzip > budget * 1024) {
    console.error(`over the budget of ${budget} KiB by ${((gzip - budget * 1024) / 1024).toFixed(1)} KiB`);
    process.exit(1);
  }
}
