#!/usr/bin/env node
// `node scripts/seams.mjs [root] [--list]`: counts the seams of src/ that issue #21 measures, for a before/after table.
// Every figure is over src/**/*.ts (root defaults to this repository):
// - session-shape readers: files other than src/agent/interrupts/session.ts whose code (comments excluded) spells the
//   paused session's wire keys (`interrupt_state`, or `delegates` as a key or property)
// - agent→hooks imports: import/export-from statements (type-only included) in src/agent/ naming src/hooks/
// - largest type circle: files in the largest strongly connected set of the import graph, type imports included
// - grant-cover deciders: files and call sites of the remembered-grant lookup (`.covers(`, `grants.find(`)
//   and of the run's own wider approvals (`runGrants(`) outside the module that defines them
// - functions over 60 / 80 lines: first to last line, of the functions Biome's noExcessiveLinesPerFunction finds
// - lines over 120 characters (and per thousand lines)
// - casts to AG-UI event types: `as XxxEvent` naming an event type @ag-ui/core exports (BaseEvent, AGUIEvent, …),
//   in files importing @ag-ui/*
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const root = resolve(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? here);

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** Source without comments (strings kept; good enough for import specifiers and keys). */
function code(text) {
  const blank = (m) => m.replace(/[^\n]/g, ""); // keeps line numbers
  return text.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/^\s*\/\/.*$/gm, "");
}

/** Relative specifiers of every import/export-from, type-only ones included. */
function imports(text) {
  const out = [];
  const re = /(?:^|[;\n])\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const m of code(text).matchAll(re)) out.push(m[1] ?? m[2]);
  return out;
}

const files = walk(join(root, "src")).map((f) => relative(root, f).split("\\").join("/"));
const texts = new Map(files.map((f) => [f, readFileSync(join(root, f), "utf8")]));
const graph = new Map();
for (const f of files) {
  const targets = imports(texts.get(f))
    .filter((s) => s.startsWith("."))
    .map((s) => posix.normalize(posix.join(posix.dirname(f), s)).replace(/\.js$/, ".ts"))
    .filter((t) => texts.has(t));
  graph.set(f, [...new Set(targets)]);
}

const sessionReaders = files.filter((f) => {
  if (f === "src/agent/interrupts/session.ts") return false;
  const c = code(texts.get(f));
  return /\binterrupt_state\b/.test(c) || /\.delegates\b|\bdelegates\??:/.test(c);
});

let agentToHooks = 0;
for (const f of files.filter((f) => f.startsWith("src/agent/"))) {
  for (const s of imports(texts.get(f))) {
    const t = posix.normalize(posix.join(posix.dirname(f), s));
    if (t.startsWith("src/hooks/")) agentToHooks++;
  }
}

// Tarjan's strongly connected components.
function largestCircle() {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  let best = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > best.length) best = component;
    }
  };
  for (const f of files) if (!idx.has(f)) visit(f);
  return best.length > 1 ? best.sort() : [];
}
const circle = largestCircle();

const coverSites = [];
// The lookup primitives themselves (src/grants/, the hooks' GrantLookup) are not deciders.
for (const f of files.filter((f) => !f.startsWith("src/grants/") && !f.endsWith("/grant-lookup.ts"))) {
  const lines = code(texts.get(f)).split("\n");
  lines.forEach((line, i) => {
    if (/\.covers\(|\brunGrants\(|grants\.find\(/.test(line) && !/\bfunction\b|^\s*(async\s+)?covers\(/.test(line))
      coverSites.push(`${f}:${i + 1}`);
  });
}

/** Functions by their span in lines (first to last line, as a reader sees them), from Biome's function rule. */
function functionSpans() {
  const dir = mkdtempSync(join(tmpdir(), "seams-"));
  writeFileSync(
    join(dir, "biome.json"),
    JSON.stringify({
      formatter: { enabled: false },
      assist: { enabled: false },
      linter: {
        enabled: true,
        rules: {
          preset: "none",
          complexity: { noExcessiveLinesPerFunction: { level: "error", options: { maxLines: 40 } } },
        },
      },
    }),
  );
  const biome = join(here, "node_modules/.bin/biome");
  const r = spawnSync(biome, ["lint", `--config-path=${dir}`, "--max-diagnostics=none", "--reporter=github", "src"], {
    cwd: root,
    encoding: "utf8",
  });
  rmSync(dir, { recursive: true, force: true });
  const hits = (r.stdout + r.stderr).split("\n").filter((l) => l.includes("noExcessiveLinesPerFunction"));
  return hits.flatMap((l) => {
    const m = /file=([^,]+),line=(\d+),endLine=(\d+)/.exec(l);
    if (!m) return [];
    const span = Number(m[3]) - Number(m[2]) + 1;
    return [{ at: `${relative(root, m[1]).split("\\").join("/")}:${m[2]} (${span} lines)`, span }];
  });
}
const spans = functionSpans();
const over60 = spans.filter((f) => f.span > 60).map((f) => f.at);
const over80 = spans.filter((f) => f.span > 80).map((f) => f.at);

let totalLines = 0;
const longLines = [];
for (const f of files) {
  texts
    .get(f)
    .split("\n")
    .forEach((line, i) => {
      totalLines++;
      if (line.length > 120) longLines.push(`${f}:${i + 1}`);
    });
}

// The event types @ag-ui/core exports (BaseEvent, AGUIEvent, RunFinishedEvent, …).
const aguiTypes = new Set(
  [...readFileSync(join(here, "node_modules/@ag-ui/core/dist/index.d.ts"), "utf8").matchAll(/\b(\w*Event)\b/g)].map(
    (m) => m[1],
  ),
);
const casts = [];
for (const f of files) {
  const text = texts.get(f);
  if (!/from\s+["']@ag-ui\//.test(text)) continue;
  code(text)
    .split("\n")
    .forEach((line, i) => {
      for (const m of line.matchAll(/\bas\s+([A-Z][A-Za-z]*Event)\b/g))
        if (aguiTypes.has(m[1])) casts.push(`${f}:${i + 1} ${m[1]}`);
    });
}

const verbose = process.argv.includes("--list");
const row = (name, value, list) => {
  console.log(`${name.padEnd(44)} ${value}`);
  if (verbose && list?.length) for (const item of list) console.log(`    ${item}`);
};
console.log(`seams of ${root}/src (${files.length} files, ${totalLines} lines)`);
row("files reading the paused-session shape", sessionReaders.length, sessionReaders);
row("imports from agent/ into hooks/", agentToHooks);
row("files in the largest type-import circle", circle.length, circle);
const coverFiles = new Set(coverSites.map((s) => s.split(":")[0]));
row("places deciding grant cover", `${coverFiles.size} files, ${coverSites.length} call sites`, coverSites);
row("functions over 60 lines", over60.length, over60);
row("functions over 80 lines", over80.length, over80);
row("lines over 120 chars", `${longLines.length} (${((longLines.length / totalLines) * 1000).toFixed(1)}/1000)`);
row("casts to AG-UI event types", casts.length, casts);
