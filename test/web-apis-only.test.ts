/**
 * src/ must run on Web APIs only. Two checks, both parsed by esbuild rather than grepped, so
 * comments, strings and property names do not trip them and locals that shadow a global are fine:
 * 1. every file in src/: no import of a Node built-in, no use of Node-only globals;
 * 2. the built dist/index.js bundles for `platform: "neutral"` with nothing external.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { build, type Plugin } from "esbuild";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DIST_INDEX, ROOT, ensureDist } from "./runtimes/bundle.js";

const NODE_ONLY_GLOBALS = [
  "process",
  "Buffer",
  "require",
  "AsyncLocalStorage",
  "__dirname",
  "__filename",
  "global",
  "setImmediate",
];
const MARK = "__kaboo_node_only__";
const builtins = new Set(builtinModules);

function isNodeBuiltin(specifier: string): boolean {
  if (specifier.startsWith("node:")) return true;
  return builtins.has(specifier) || builtins.has(specifier.split("/")[0] ?? "");
}

/** One problem found in one file. */
interface Violation {
  file: string;
  what: string;
}

/** Checks source files (TS or JS) for Node built-in imports and Node-only globals. */
async function scanSources(files: string[], base: string): Promise<Violation[]> {
  const violations: Violation[] = [];
  const entries = new Set(files);
  // Every import stays external and unresolved: only the specifier matters, and a sibling
  // that is still being written must not break this check.
  const recordImports: Plugin = {
    name: "record-imports",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point" || entries.has(args.path)) return undefined;
        if (isNodeBuiltin(args.path))
          violations.push({
            file: relative(base, args.importer),
            what: `imports Node built-in "${args.path}" (${args.kind})`,
          });
        return { path: args.path, external: true };
      });
    },
  };
  // `define` swaps only real references to the global (not properties, strings, comments or
  // shadowing locals) for a marker the output can be searched for.
  const define: Record<string, string> = {};
  for (const name of NODE_ONLY_GLOBALS) {
    define[name] = `${MARK}${name}`;
    define[`globalThis.${name}`] = `${MARK}${name}`;
  }
  const result = await build({
    entryPoints: files,
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    outdir: join(base, "__out"),
    outbase: base,
    define,
    // Keep imports whose bindings go unused, as the project's tsconfig does: they still load.
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    plugins: [recordImports],
    logLevel: "silent",
  });
  for (const out of result.outputFiles) {
    const source = relative(join(base, "__out"), out.path).replace(/\.js$/, "");
    for (const match of out.text.matchAll(new RegExp(`${MARK}(\\w+)`, "g"))) {
      violations.push({ file: source, what: `uses Node-only global "${match[1]}"` });
    }
  }
  return violations;
}

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name));
}

describe("the checker itself", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "kaboo-webapis-"));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function scan(code: string): Promise<string[]> {
    const file = join(dir, `f${crypto.randomUUID()}.ts`);
    writeFileSync(file, code);
    return (await scanSources([file], dir)).map((v) => v.what);
  }

  test.each([
    ['import { readFile } from "node:fs/promises";', 'Node built-in "node:fs/promises"'],
    ['import path from "path"; export const p = path;', 'Node built-in "path"'],
    ['export { createHash } from "crypto";', 'Node built-in "crypto"'],
    ['export const m = () => import("node:child_process");', 'Node built-in "node:child_process"'],
    ['import "events";', 'Node built-in "events"'],
    ["export const home = process.env.HOME;", 'global "process"'],
    ["export const p = globalThis.process;", 'global "process"'],
    ['export const b = Buffer.from("x");', 'global "Buffer"'],
    ['export const r = require("x");', 'global "require"'],
    ["export const s = new AsyncLocalStorage();", 'global "AsyncLocalStorage"'],
  ])("flags %s", async (code, expected) => {
    const found = await scan(code);
    expect(
      found.some((w) => w.includes(expected)),
      JSON.stringify(found),
    ).toBe(true);
  });

  test("ignores comments, strings, property names, shadowing locals and packages", async () => {
    const code = [
      "// process.env and Buffer in a comment; import fs from 'fs'",
      '/** require("path") */',
      'import * as z from "zod/v4";',
      'export const msg = "the approval process.env Buffer require(";',
      "export const o = { process: 1, Buffer: 2 }; export const v = o.process + o.Buffer;",
      "export function f(process: { env: string }) { return process.env; }",
      "export const s = z.string();",
    ].join("\n");
    expect(await scan(code)).toEqual([]);
  });
});

describe("src/ uses Web APIs only", () => {
  test("no file in src/ imports a Node built-in or uses a Node-only global", async () => {
    const src = join(ROOT, "src");
    const files = listSources(src);
    expect(files.length).toBeGreaterThan(0);
    expect(await scanSources(files, src)).toEqual([]);
  });

  test("dist/index.js bundles for platform neutral with nothing external and no Node built-in", async () => {
    ensureDist();
    const wanted: string[] = [];
    const watchBuiltins: Plugin = {
      name: "watch-builtins",
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (isNodeBuiltin(args.path)) wanted.push(`${relative(ROOT, args.importer)} -> ${args.path}`);
          return undefined;
        });
      },
    };
    const result = await build({
      entryPoints: [DIST_INDEX],
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      metafile: true,
      plugins: [watchBuiltins],
      logLevel: "silent",
    }).catch((error: { errors?: { text: string }[] }) => {
      throw new Error(
        `dist/index.js does not bundle for platform neutral: ${(error.errors ?? []).map((e) => e.text).join("; ") || String(error)}`,
      );
    });
    expect(wanted).toEqual([]);
    const externals = Object.values(result.metafile.inputs).flatMap((input) =>
      input.imports.filter((i) => i.external).map((i) => i.path),
    );
    expect(externals).toEqual([]);
    expect(result.outputFiles[0]?.text.length ?? 0).toBeGreaterThan(1000);
    // A build (when dist/ is missing or older than src/) and a bundle: over 5 s on a loaded machine.
  }, 60_000);
});
