// The Node example's server: examples/node/server.ts bundled with esbuild (`kaboo-workflows/...` resolves
// to this repository's sources through package.json "exports", no build step; an app installs the package
// instead) and served with @hono/node-server. Used by dev.mjs (`npm run example:node`) and
// test/examples/node.test.ts.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

const packageEntries = {
  name: "kaboo-workflows-entries",
  setup(b) {
    b.onResolve({ filter: /^kaboo-workflows(\/.*)?$/ }, (args) => {
      const target = exports[`.${args.path.slice("kaboo-workflows".length)}`]?.import;
      if (!target) return { errors: [{ text: `no entry ${args.path}` }] };
      return { path: join(root, target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")) };
    });
  },
};

/**
 * Bundles the example and serves it.
 * @param {{ port?: number, hostname?: string, databaseUrl?: string, dataDir?: string, secret?: string, bankApiUrl?: string }} [options]
 *   Default port 0 (any free one), 127.0.0.1, PGlite in .tmp/node-example-data, the rest from the environment.
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startExample({
  port = 0,
  hostname = "127.0.0.1",
  databaseUrl = process.env.DATABASE_URL,
  dataDir = join(root, ".tmp", "node-example-data"),
  secret = process.env.GRANT_SECRET,
  bankApiUrl = process.env.BANK_API_URL,
} = {}) {
  // The bundle lives in the repository so that its package imports (PGlite, pg, hono, zod) resolve to node_modules.
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const file = join(root, ".tmp", `node-example-${process.pid}-${Date.now()}.mjs`);
  await build({
    entryPoints: [join(here, "server.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "error",
    plugins: [packageEntries],
    packages: "external",
    outfile: file,
  });
  const { createApp } = await import(pathToFileURL(file).href);
  rmSync(file, { force: true });
  const app = await createApp({
    databaseUrl,
    dataDir,
    secret,
    openAiApiKey: process.env.OPENAI_API_KEY,
    openAiModel: process.env.OPENAI_MODEL,
    bankApiUrl,
  });
  const { server, bound } = await new Promise((ok) => {
    const s = serve({ port, hostname, fetch: app.fetch }, (info) => ok({ server: s, bound: info.port }));
  });
  return {
    url: `http://${hostname}:${bound}/`,
    close: async () => {
      await new Promise((ok) => server.close(() => ok()));
      await app.close();
    },
  };
}
