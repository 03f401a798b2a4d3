/**
 * Loads examples/ai-sdk as its app would run it: `kaboo-workflows/...` imports resolve to this
 * repository's entries (package.json "exports", mapped to src/), bundled with esbuild; `ai` and zod
 * stay the installed packages.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The example's modules: the server's handler and the chat client. */
export type ExampleModules = typeof import("../../../examples/ai-sdk/chat.js") &
  typeof import("../../../examples/ai-sdk/chat-client.js");

export async function loadExample(): Promise<ExampleModules> {
  const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, { import?: string }>;
  };
  const dir = join(root, ".tmp");
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `ai-sdk-example-${process.pid}-${Date.now()}.mjs`);
  await build({
    stdin: {
      contents: 'export * from "./examples/ai-sdk/chat.ts"; export * from "./examples/ai-sdk/chat-client.ts";',
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    outfile,
    logLevel: "error",
    external: ["ai", "ai/*", "zod", "zod/*"],
    plugins: [
      {
        name: "kaboo-workflows-entries",
        setup(b) {
          b.onResolve({ filter: /^kaboo-workflows(\/.*)?$/ }, (args) => {
            const target = exports[`.${args.path.slice("kaboo-workflows".length)}`]?.import;
            if (!target) return { errors: [{ text: `no entry ${args.path}` }] };
            return { path: join(root, target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")) };
          });
        },
      },
    ],
  });
  try {
    return (await import(pathToFileURL(outfile).href)) as ExampleModules;
  } finally {
    rmSync(outfile, { force: true });
  }
}
