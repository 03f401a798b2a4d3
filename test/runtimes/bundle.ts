/**
 * Node-side helpers for the runtime proof: make sure dist/ is built and fresh, and bundle an
 * entry with esbuild for a Web-API-only runtime (no Node built-ins, no polyfills).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Message as EsbuildMessage, type Plugin } from "esbuild";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const DIST_INDEX = join(ROOT, "dist/index.js");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(file) : statSync(file).mtimeMs);
  }
  return newest;
}

/**
 * Builds dist/ with the project's build config when it is missing or older than src/, so a test
 * run on its own never checks a stale build. `npm test` builds first and skips this.
 */
export function ensureDist(): void {
  const fresh = existsSync(DIST_INDEX) && statSync(DIST_INDEX).mtimeMs >= newestMtime(join(ROOT, "src"));
  if (fresh) return;
  try {
    execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "pipe" });
  } catch (error) {
    // tsc still emits on type errors; those are the typecheck step's business, not this proof's.
    if (!existsSync(DIST_INDEX)) throw error;
    const out = (error as { stdout?: Buffer }).stdout?.toString() ?? "";
    console.warn(`tsc reported type errors while building dist/ (the typecheck step covers them):\n${out}`);
  }
}

/** `kaboo-workflows` and its subpath entries resolve to dist/ through the package's own exports map. */
const packageEntries: Plugin = {
  name: "kaboo-workflows-entries",
  setup(b) {
    const exportsMap = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, { import: string }> }
    ).exports;
    b.onResolve({ filter: /^kaboo-workflows(\/.*)?$/ }, (args) => {
      const target = exportsMap[`.${args.path.slice("kaboo-workflows".length)}`];
      if (!target) return { errors: [{ text: `kaboo-workflows has no entry "${args.path}"` }] };
      return { path: join(ROOT, target.import) };
    });
  },
};

/**
 * Bundles one entry of test/runtimes (or any file under the repository, e.g. an example) into a
 * single ESM string, the package taken from dist/ by its public entries.
 * @param o - `browser`: resolve packages as Wrangler does for a Worker (the `workerd`, `worker` and
 *   `browser` conditions and `browser` field maps: the OpenTelemetry SDK's Web build). Default: neutral.
 */
export async function bundleEntry(entry: string, o: { browser?: boolean } = {}): Promise<string> {
  const result = await build({
    entryPoints: [entry.startsWith("/") ? entry : join(ROOT, "test/runtimes", entry)],
    bundle: true,
    write: false,
    format: "esm",
    ...(o.browser
      ? { platform: "browser" as const, conditions: ["workerd", "worker", "browser"] }
      : { platform: "neutral" as const }),
    // platform "neutral" has no default main fields; zod and friends publish "module"/"main".
    mainFields: o.browser ? ["browser", "module", "main"] : ["module", "main"],
    target: "es2022",
    plugins: [packageEntries],
    // A Worker imports its platform modules at run time.
    external: ["cloudflare:*"],
    logLevel: "silent",
  });
  const errors: EsbuildMessage[] = result.errors;
  if (errors.length > 0) throw new Error(errors.map((e) => e.text).join("\n"));
  const file = result.outputFiles[0];
  if (!file) throw new Error(`esbuild produced nothing for ${entry}`);
  return file.text;
}
