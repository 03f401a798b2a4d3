// Shared by `npm run bench:size` and the size budget test: min+gzip bytes of the package's entries and
// of a typical app slice, bundled as an app's bundler would (esbuild, ESM, platform neutral, code
// splitting), with the zod a new install resolves. zod is chosen per measurement: "4" is the zod 4 that
// `npm install kaboo-workflows zod` gets (the lockfile pins it as the `zod4` alias), "3" the zod 3.25
// that `@ag-ui/client` 1.x requires (the repository's own `zod`).
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const ZOD_DIRS = { 4: "zod4", 3: "zod" };

/** The version of zod that measurements with `zod` ("4" or "3") use. */
export function zodVersion(zod) {
  return JSON.parse(readFileSync(join(root, "node_modules", ZOD_DIRS[zod], "package.json"), "utf8")).version;
}

/** An esbuild plugin that resolves `zod` and `zod/*` (the package's and the app's) to one zod copy. */
function oneZod(zod) {
  const dir = ZOD_DIRS[zod];
  return {
    name: "one-zod",
    setup(b) {
      b.onResolve({ filter: /^zod(\/.*)?$/ }, (args) =>
        args.pluginData === "one-zod"
          ? undefined
          : b.resolve(args.path.replace(/^zod/, dir), { resolveDir: root, kind: args.kind, pluginData: "one-zod" }),
      );
    },
  };
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

const gz = (bytes) => gzipSync(bytes, { level: 9 }).byteLength;

/**
 * Bytes of one module source (imports relative to the repository root) as an app ships it.
 * @returns `{ raw, min, gzip }` of what loads with the page (each file gzipped on its own) and `lazyGzip` of the chunks it loads later.
 */
export async function measure(contents, { zod = "4", external = [], loader = "ts" } = {}) {
  const split = async (minify) => {
    const result = await build({
      ...common,
      stdin: { contents, resolveDir: root, loader },
      external,
      minify,
      splitting: true,
      outdir: join(root, ".tmp/size"),
      metafile: true,
      absWorkingDir: root,
      plugins: [oneZod(zod)],
    });
    // What loads with the page: the entry chunk and every chunk it imports statically (code splitting
    // puts modules shared with a lazy chunk into a chunk of their own); the rest loads on demand.
    const byPath = new Map(result.outputFiles.map((f) => [relative(root, f.path), f.contents]));
    const eager = new Set();
    const visit = (path) => {
      if (eager.has(path)) return;
      eager.add(path);
      for (const i of result.metafile.outputs[path].imports)
        if (i.kind === "import-statement" && !i.external) visit(i.path);
    };
    visit([...byPath.keys()].find((p) => p.endsWith("stdin.js")));
    const initial = [...eager].map((p) => byPath.get(p));
    const lazy = [...byPath].filter(([p]) => !eager.has(p)).map(([, c]) => c);
    return { initial, lazy };
  };
  const raw = await split(false);
  const min = await split(true);
  const sum = (parts, f) => parts.reduce((n, p) => n + f(p), 0);
  return {
    raw: sum(raw.initial, (p) => p.byteLength),
    min: sum(min.initial, (p) => p.byteLength),
    gzip: sum(min.initial, gz),
    lazyGzip: min.lazy.reduce((n, p) => n + gz(p), 0),
  };
}

/** The tool schemas of a typical app, one way per schema library. */
export const TOOL_KINDS = {
  "zod/v4/mini": ['import * as z from "zod/v4/mini";', "inputSchema: z.object({ city: z.string() })"],
  "zod/v4 (classic)": ['import * as z from "zod/v4";', "inputSchema: z.object({ city: z.string() })"],
  "valibot (toStandardJsonSchema)": [
    'import * as v from "valibot"; import { toStandardJsonSchema } from "@valibot/to-json-schema";',
    "inputSchema: toStandardJsonSchema(v.object({ city: v.string() }))",
  ],
  "valibot (jsonSchema option)": [
    'import * as v from "valibot";',
    "inputSchema: v.object({ city: v.string() }), jsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }",
  ],
  "plain JSON Schema": [
    "",
    "jsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }",
  ],
};

/**
 * The module of a typical app slice: an agent, a tool, an approval gate and the usual guards.
 * @param tools - A key of {@link TOOL_KINDS}.
 * @param from - `"dist"` (what ships) or `"src"` (the sources, for the budget test: no build needed).
 */
export function sliceSource(tools, from = "dist") {
  const [schemaImport, toolSchema] = TOOL_KINDS[tools];
  const at =
    from === "dist"
      ? { core: "./dist/index.js", hooks: "./dist/hooks/index.js" }
      : { core: "./src/index.ts", hooks: "./src/hooks/index.ts" };
  return `
import { Agent, tool } from "${at.core}";
import { InterruptHook, MaxToolCallsGuard, ToolNameSanitizer, ContextHook, StopGuard, EventPublisher } from "${at.hooks}";
${schemaImport}
export const weather = tool({ name: "weather", description: "Weather", ${toolSchema}, callback: ({ city }) => city });
export const hooks = [InterruptHook, MaxToolCallsGuard, ToolNameSanitizer, ContextHook, StopGuard, EventPublisher];
export { Agent };
`;
}

/** Optional peers are the app's own choice, so they are never counted. */
export function optionalPeers() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const names = Object.entries(pkg.peerDependenciesMeta ?? {})
    .filter(([, m]) => m?.optional)
    .map(([name]) => name);
  return [...new Set([...names, "@modelcontextprotocol/sdk"])];
}
