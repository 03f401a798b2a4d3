#!/usr/bin/env node
// `npm run example:worker` (from the repository root, after `npm run build`): this Worker in workerd
// through miniflare, the repository's own build of kaboo-workflows bundled in, its Durable Objects on
// SQLite persisted under .tmp/worker-state. It stands in for `wrangler dev`, whose current releases need
// Node 22.12; miniflare is what wrangler runs underneath, and is pinned in the repository.
// Environment: PORT (default 8787), HOSTNAME (default 127.0.0.1), GRANT_SECRET, BANK_API_URL,
// OPENAI_API_KEY, OPENAI_MODEL, ALLOWED_ORIGIN, PERSIST_DIR.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

// `kaboo-workflows/...` resolves to dist/ through the package's own exports map, as an app's bundler would.
const packageEntries = {
  name: "kaboo-workflows-entries",
  setup(b) {
    b.onResolve({ filter: /^kaboo-workflows(\/.*)?$/ }, (args) => {
      const target = exports[`.${args.path.slice("kaboo-workflows".length)}`];
      return target ? { path: join(root, target.import) } : { errors: [{ text: `no entry ${args.path}` }] };
    });
  },
};

const bundled = await build({
  entryPoints: [join(here, "src/worker.ts")],
  bundle: true,
  write: false,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  target: "es2022",
  external: ["cloudflare:*"],
  plugins: [packageEntries],
  logLevel: "error",
});

const env = process.env;
const vars = ["GRANT_SECRET", "BANK_API_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "ALLOWED_ORIGIN"];
const mf = new Miniflare({
  modules: true,
  script: bundled.outputFiles[0].text,
  // The same settings as wrangler.toml.
  compatibilityDate: "2025-04-01",
  compatibilityFlags: ["enable_request_signal"],
  durableObjects: { KABOO_THREAD: { className: "KabooThread", useSQLite: true } },
  durableObjectsPersist: env.PERSIST_DIR || join(root, ".tmp/worker-state"),
  bindings: Object.fromEntries(vars.filter((name) => env[name]).map((name) => [name, env[name]])),
  port: Number(env.PORT ?? 8787),
  host: env.HOSTNAME ?? "127.0.0.1",
});
const url = (await mf.ready).toString().replace(/\/$/, "");
console.log(`kaboo: listening on ${url}`);
const stop = async () => {
  await mf.dispose();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
