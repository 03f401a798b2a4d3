// Shared by the bench scripts: bundle TypeScript sources of this repository with esbuild (Node cannot
// import the .ts files directly) into one platform-neutral ESM file, as an app's bundler would.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bundles `contents` (module source, imports relative to the repository root) to `outfile`.
 * @param {string} contents
 * @param {string} outfile
 * @param {import("esbuild").Plugin[]} [plugins]
 */
export async function bundleTo(contents, outfile, plugins = []) {
  await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    outfile,
    logLevel: "error",
    plugins,
  });
  return outfile;
}

/**
 * Bundles `contents` into a temporary file and imports it (the file is removed after the import).
 * @param {string} contents
 * @param {import("esbuild").Plugin[]} [plugins]
 */
export async function importBundle(contents, plugins = []) {
  const dir = mkdtempSync(join(tmpdir(), "kaboo-bench-"));
  try {
    return await import(pathToFileURL(await bundleTo(contents, join(dir, "bundle.mjs"), plugins)).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
