/**
 * `npm run demo`: the Vite dev server for demo/ (a banking assistant running an agent with the
 * scripted model in the browser). Loopback only; the next free port if 5173 is taken.
 *
 * The demo imports the package by its public entries (`kaboo-workflows`, `kaboo-workflows/hooks`, …);
 * the aliases map each entry of package.json's `exports` to its source in src/, so the demo runs on
 * the code being edited while using only what a consumer can import.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  name: string;
  exports: Record<string, string | { import?: string }>;
};

/** `./dist/hooks/index.js` → `<root>/src/hooks/index.ts`, for every public entry. */
const entryAliases = Object.entries(pkg.exports).flatMap(([key, target]) => {
  const file = typeof target === "string" ? target : target.import;
  if (!file?.startsWith("./dist/")) return [];
  const source = fileURLToPath(new URL(file.replace("./dist/", "./src/").replace(/\.js$/, ".ts"), import.meta.url));
  const name = key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`;
  return [{ find: new RegExp(`^${name.replace(/[/.-]/g, "\\$&")}$`), replacement: source }];
});

/**
 * The demo's gates name their tools exactly, so the hooks never load the glob engine: the
 * production build leaves that lazily loaded chunk out instead of shipping code nobody runs.
 */
const noGlobChunk: Plugin = {
  name: "demo-no-glob-chunk",
  apply: "build",
  enforce: "pre",
  resolveId: (id) => (id === "@isaacs/nonrecursive-glob-match" ? "\0demo-no-glob" : undefined),
  load: (id) =>
    id === "\0demo-no-glob"
      ? 'export class Matcher { constructor() { throw new Error("The demo build has no glob support: name tools exactly."); } }'
      : undefined,
};

export default defineConfig({
  root: "demo",
  resolve: { alias: entryAliases },
  plugins: [noGlobChunk],
  server: { host: "127.0.0.1", port: 5173, strictPort: false },
  preview: { host: "127.0.0.1", port: 4173, strictPort: false },
  build: { outDir: "../.tmp/demo-dist", emptyOutDir: true },
  // Pre-bundled at start-up: a dependency found only when the page first imports it would make
  // Vite re-optimise and reload the page mid-conversation.
  optimizeDeps: {
    include: [
      "@ag-ui/client",
      "@ag-ui/core",
      "rxjs",
      "zod/v4",
      "idb-keyval",
      "@isaacs/nonrecursive-glob-match",
      "fast-json-patch",
      "eventsource-parser",
      "streaming-markdown",
      "@opentelemetry/api",
      "@opentelemetry/sdk-trace-base",
    ],
  },
});
