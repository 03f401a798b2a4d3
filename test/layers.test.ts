/**
 * The layer rule (DESIGN.md "Layers", README "Layout"): which folder of src/ may import which.
 *
 *   errors, logger, options  ←  agent/  ←  models/, grants/, stores/, multiagent/  ←  hooks/  ←  agui/, mcp/
 *
 * Nothing imports upward, type-only imports included. Inside agui/, page/ and edge/ build on the
 * shared files at the agui root, never on each other, and the root (but for the entry, index.ts)
 * never on them. The entry files of a layer (src/index.ts) sit above what they export.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const RANKS: Record<string, number> = {
  base: 0,
  agent: 1,
  models: 2,
  grants: 2,
  indexeddb: 2,
  stores: 2,
  multiagent: 2,
  hooks: 3,
  agui: 4,
  "agui/page": 5,
  "agui/edge": 5,
  mcp: 4,
  "ai-sdk": 4,
  otel: 4,
  strands: 4,
  entry: 6,
};

/** The layer of a file under src/ (a path relative to the repository, with forward slashes). */
function layerOf(file: string): string {
  const rest = file.replace(/^src\//, "");
  if (rest === "index.ts") return "entry";
  const [top, sub] = rest.split("/");
  if (sub === undefined) return "base"; // errors.ts, logger.ts, options.ts
  if (top === "agui" && (sub === "page" || sub === "edge")) return `agui/${sub}`;
  if (!(top! in RANKS))
    throw new Error(`${file}: src/${top}/ is in no layer; add it to test/layers.test.ts and the README`);
  return top!;
}

/** Why `from` may not import `to`, or `undefined` when it may. */
function violation(from: string, to: string): string | undefined {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a === b) return undefined;
  if (from === "src/agui/index.ts" && b.startsWith("agui/")) return undefined; // the entry exports both sides
  if (a.startsWith("agui/") && b.startsWith("agui/")) return `${a} imports ${b}: page and edge never import each other`;
  if (RANKS[b]! > RANKS[a]!) return `${a} imports ${b}, a layer above it`;
  return undefined;
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (name.endsWith(".ts")) out.push(relative(root, path).split("\\").join("/"));
  }
  return out;
}

/** Every relative specifier a file imports or re-exports, type-only ones included, with its line. */
function importsOf(text: string): { spec: string; line: number }[] {
  const out: { spec: string; line: number }[] = [];
  // Comments out (keeping line numbers), so an example in a TSDoc block is not an import.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, "")).replace(/^\s*\/\/.*$/gm, "");
  const re = /(?:^|[;\n])\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
  for (const m of code.matchAll(re)) {
    const spec = (m[1] ?? m[2])!;
    if (spec.startsWith(".")) out.push({ spec, line: code.slice(0, m.index + m[0].length).split("\n").length });
  }
  return out;
}

describe("the layer rule", () => {
  test("the checker sees type imports and re-exports, and refuses an upward or sideways import", () => {
    const text =
      'import type { X } from "../hooks/x.js";\nexport { Y } from "./y.js";\n/** import { Z } from "../agui/z.js" */';
    expect(importsOf(text).map((i) => i.spec)).toEqual(["../hooks/x.js", "./y.js"]);
    expect(violation("src/agent/run-context.ts", "src/hooks/approval/run.ts")).toMatch(/layer above/);
    expect(violation("src/grants/index.ts", "src/indexeddb/ledger.ts")).toBeUndefined();
    expect(violation("src/agui/edge/trust/seal.ts", "src/agui/page/kaboo-agent.ts")).toMatch(/never import each other/);
    expect(violation("src/agui/core/run.ts", "src/agui/edge/request/sse.ts")).toMatch(/layer above/);
    expect(violation("src/agui/index.ts", "src/agui/edge/handler.ts")).toBeUndefined();
    expect(violation("src/errors.ts", "src/agent/agent.ts")).toMatch(/layer above/);
  });

  test("no file in src/ imports upward (type-only imports included)", () => {
    const problems: string[] = [];
    for (const file of sources(join(root, "src"))) {
      for (const { spec, line } of importsOf(readFileSync(join(root, file), "utf8"))) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, ".ts");
        const why = violation(file, target);
        if (why) problems.push(`${file}:${line} imports ${spec}: ${why}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
