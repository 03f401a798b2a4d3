// The example's server (streamText with a scripted model, so no key is needed) and its page (the AI
// SDK's chat client), bundled with esbuild and served with @hono/node-server. `kaboo-workflows/...`
// resolves to this repository's sources through package.json "exports" (no build step); an app
// installs the package instead. Used by dev.mjs (`npm run example:ai-sdk`) and e2e/ai-sdk.e2e.test.ts.
import { mkdirSync, readFileSync } from "node:fs";
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
 * @param {{ port?: number, hostname?: string }} [options] - Default port 0 (any free one), 127.0.0.1.
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startExample({ port = 0, hostname = "127.0.0.1" } = {}) {
  const common = { bundle: true, format: "esm", logLevel: "error", plugins: [packageEntries] };
  const page = await build({
    ...common,
    entryPoints: [join(here, "page.ts")],
    platform: "browser",
    write: false,
    minify: true,
  });
  // The server's bundle lives in the repository so that its `ai` and zod imports resolve to node_modules.
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const serverFile = join(root, ".tmp", `ai-sdk-example-server-${process.pid}.mjs`);
  await build({
    ...common,
    entryPoints: [join(here, "chat.ts")],
    platform: "neutral",
    mainFields: ["module", "main"],
    outfile: serverFile,
    external: ["ai", "ai/*", "zod", "zod/*"],
  });
  const { createChatHandler } = await import(pathToFileURL(serverFile).href);
  const handleChat = createChatHandler();
  const html = readFileSync(join(here, "index.html"), "utf8");
  const pageJs = page.outputFiles[0].text;
  const fetch = (request) => {
    const { pathname } = new URL(request.url);
    if (request.method === "POST" && pathname === "/api/chat") return handleChat(request);
    if (pathname === "/page.js") return new Response(pageJs, { headers: { "content-type": "text/javascript" } });
    if (pathname === "/") return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    return new Response("Not found", { status: 404 });
  };
  const { server, bound } = await new Promise((ok) => {
    const s = serve({ port, hostname, fetch }, (info) => ok({ server: s, bound: info.port }));
  });
  return {
    url: `http://${hostname}:${bound}/`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
