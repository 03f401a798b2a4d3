#!/usr/bin/env node
// `npm run docs:check` (a step of `npm test`): every TypeScript block of the docs and the README type-checks
// against the package, and every link between pages, to a heading, or to a file of the repository resolves.
// ```ts and ```js blocks are written to .tmp/docs-check/ and checked by the root `tsc`, with `kaboo-workflows/*`
// mapped to src/ (as tsconfig.test.json does). A block marked ```ts no-check (a fragment) is skipped; lines above
// `// ---cut---` in a block are checked but not shown by the site (docs/.vitepress/config.ts). With TypeDoc installed
// (docs/api), the TSDoc's {@link} and {@inheritDoc} targets must resolve too. A guide names in an `npm install` the
// packages its code imports.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const docs = join(root, "docs");
const out = join(root, ".tmp/docs-check");
// Generated or installed: docs/reference (TypeDoc's pages), docs/api's node_modules, the site's build.
const skipDirs = new Set(["node_modules", ".vitepress", "reference", "screenshots"]);

function markdownFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return skipDirs.has(name) ? [] : markdownFiles(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

/** VitePress's heading ids (@mdit-vue/shared `slugify`), from a heading's text without its markdown. */
function slugify(heading) {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*]/g, "");
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036F]/g, "")
    .replace(/[\u0000-\u001f]/g, "")
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^(\d)/, "_$1")
    .toLowerCase();
}

/** The page's fenced blocks (with their info string) and its prose with the blocks blanked out. */
function parse(text) {
  const blocks = [];
  const prose = [];
  let open = null;
  text.split("\n").forEach((line, i) => {
    const fence = /^(\s*)(`{3,})(.*)$/.exec(line);
    if (open) {
      if (fence && fence[2].length >= open.ticks && fence[3].trim() === "") {
        blocks.push(open);
        open = null;
      } else open.lines.push(line);
      prose.push("");
    } else if (fence) {
      open = { info: fence[3].trim(), ticks: fence[2].length, line: i + 1, lines: [] };
      prose.push("");
    } else prose.push(line);
  });
  return { blocks, prose };
}

const pages = [...markdownFiles(docs), join(root, "README.md")];
const parsed = new Map(pages.map((p) => [p, parse(readFileSync(p, "utf8"))]));
const headingIds = (page) =>
  new Set(
    parsed
      .get(page)
      .prose.map((l) => /^#{1,6}\s+(.*?)\s*$/.exec(l)?.[1])
      .filter(Boolean)
      .map(slugify),
  );

// The reference pages exist only after `npm run docs`; a link to one is checked against the entries.
const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const referencePages = new Set(["index.md", "index/index.md"]);
for (const target of Object.values(exports)) {
  if (typeof target === "object") referencePages.add(`${target.import.replace(/^\.\/dist\/|(\/index)?\.js$/g, "")}.md`);
}

const problems = [];
for (const [page, { prose }] of parsed) {
  const where = (i) => `${relative(root, page)}:${i + 1}`;
  prose.forEach((line, i) => {
    const bare = line.replace(/`[^`]*`/g, "");
    for (const m of bare.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const link = m[1];
      if (/^(https?:|mailto:)/.test(link)) continue;
      const [path, anchor] = link.split("#");
      const target = path === "" ? page : resolve(dirname(page), decodeURI(path));
      const inReference = relative(join(docs, "reference"), target);
      if (!inReference.startsWith("..") && !existsSync(join(docs, "reference"))) {
        if (!referencePages.has(inReference)) problems.push(`${where(i)}: no API reference page ${link}`);
        continue;
      }
      if (!existsSync(target)) {
        problems.push(`${where(i)}: broken link ${link}`);
        continue;
      }
      if (target.startsWith(docs) && !target.endsWith(".md") && statSync(target).isFile() && !m[0].startsWith("!")) {
        problems.push(`${where(i)}: ${link} is a file inside docs/ but not a page`);
      }
      if (anchor && target.endsWith(".md") && parsed.has(target) && !headingIds(target).has(anchor)) {
        problems.push(`${where(i)}: no heading #${anchor} in ${relative(root, target)}`);
      }
    }
  });
}

// The quick start's install commands and code are run as printed from the README (test/readme.test.ts,
// test/runtimes/package-consumer.test.ts); the docs' copies must stay the same text.
const firstBlock = (page, lang) =>
  parsed
    .get(page)
    .blocks.find((b) => b.info.split(/\s+/)[0] === lang)
    ?.lines.join("\n");
const quickStart = join(docs, "guide/quick-start.md");
for (const lang of ["sh", "js"]) {
  if (firstBlock(quickStart, lang) !== firstBlock(join(root, "README.md"), lang)) {
    problems.push(
      `docs/guide/quick-start.md: its first \`\`\`${lang} block differs from the README's (copy it from there)`,
    );
  }
}

// A guide says how to install what its code imports: every package its ```ts/```js blocks import at run time (the
// optional peer of a `kaboo-workflows/*` entry included) is named by an `npm install` on the page, or the page
// links to the quick start's Install. `kaboo-workflows` itself is installed by the quick start.
const ENTRY_PEERS = {
  agui: "@ag-ui/client",
  mcp: "@modelcontextprotocol/sdk",
  otel: "@opentelemetry/api",
  "ai-sdk": "ai",
  strands: "@strands-agents/sdk",
};
for (const [page, { blocks, prose }] of parsed) {
  if (relative(join(docs, "guide"), page).startsWith("..")) continue;
  const text = readFileSync(page, "utf8");
  if (/quick-start\.md#install\)/.test(prose.join("\n"))) continue;
  const installed = new Set(
    [...text.matchAll(/npm install ([^\n`#]*)/g)].flatMap((m) =>
      m[1].split(/\s+/).map((w) => w.replace(/(.)@.*$/, "$1")),
    ),
  );
  const needed = new Set();
  for (const b of blocks) {
    if (!["ts", "typescript", "js"].includes(b.info.split(/\s+/)[0])) continue;
    const shown = b.lines.join("\n").split("// ---cut---").pop();
    for (const m of shown.matchAll(/^import\s+(?!type\b)[^"]*"([^"]+)"/gm)) {
      const spec = m[1];
      if (spec.startsWith(".") || spec.startsWith("node:")) continue;
      const entry = /^kaboo-workflows\/([\w-]+)/.exec(spec)?.[1];
      if (entry) {
        if (ENTRY_PEERS[entry]) needed.add(ENTRY_PEERS[entry]);
      } else if (!spec.startsWith("kaboo-workflows")) {
        needed.add(
          spec
            .split("/")
            .slice(0, spec.startsWith("@") ? 2 : 1)
            .join("/"),
        );
      }
    }
  }
  const missing = [...needed].filter((name) => !installed.has(name));
  if (missing.length > 0) {
    problems.push(
      `${relative(root, page)}: its code imports ${missing.join(", ")}, which no \`npm install\` on the page names`,
    );
  }
}

// Code blocks: one module per block, so names never clash between blocks.
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const files = [];
const origin = new Map();
for (const [page, { blocks }] of parsed) {
  blocks.forEach((b, n) => {
    const [lang, ...flags] = b.info.split(/\s+/);
    if (!["ts", "typescript", "js"].includes(lang) || flags.includes("no-check")) return;
    const name = `${relative(root, page).replace(/[/.]/g, "_")}_${n + 1}.ts`;
    writeFileSync(join(out, name), `${b.lines.join("\n")}\nexport {};\n`);
    files.push(name);
    origin.set(name, { page: relative(root, page), line: b.line });
  });
}
// Packages a guide names that this repository does not install: declared here with the shape the guide uses.
writeFileSync(
  join(out, "not-installed.d.ts"),
  `declare module "@opentelemetry/exporter-trace-otlp-http" {
  import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
  export class OTLPTraceExporter implements SpanExporter {
    constructor(config?: { url?: string; headers?: Record<string, string> });
    export: SpanExporter["export"];
    shutdown: SpanExporter["shutdown"];
  }
}
`,
);
files.push("not-installed.d.ts");
writeFileSync(
  join(out, "tsconfig.json"),
  JSON.stringify({
    extends: "../../tsconfig.json",
    compilerOptions: {
      noEmit: true,
      rootDir: "../..",
      types: ["node"],
      noUnusedLocals: false,
      paths: {
        "kaboo-workflows": ["../../src/index.ts"],
        "kaboo-workflows/*": ["../../src/*/index.ts", "../../src/*.ts"],
      },
    },
    files,
  }),
);
const tsc = spawnSync(join(root, "node_modules/.bin/tsc"), ["-p", join(out, "tsconfig.json"), "--pretty", "false"], {
  cwd: root,
  encoding: "utf8",
});
for (const line of `${tsc.stdout}${tsc.stderr}`.split("\n").filter(Boolean)) {
  // Name the page and the line in it, not the extracted file.
  const m = /([\w.-]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
  const o = m && origin.get(m[1]);
  problems.push(o ? `${o.page}:${o.line + Number(m[2])}: ${m[4]}` : line);
}
if (tsc.status !== 0 && problems.length === 0) problems.push(`tsc exited with ${tsc.status ?? tsc.signal}`);

// TSDoc links: TypeDoc (docs/api, installed by the first `npm run docs`) validates every {@link} and {@inheritDoc}
// of the entries' comments (docs/api/typedoc.json makes a broken one an error); skipped when it is not installed.
const typedoc = join(docs, "api/node_modules/.bin/typedoc");
let tsdocLinks = "TSDoc links not checked (run `npm run docs` once to install TypeDoc)";
if (existsSync(typedoc)) {
  const entries = Object.values(exports)
    .filter((v) => typeof v === "object")
    .map((v) => v.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
  const options = ["--options", join(docs, "api/typedoc.json"), "--emit", "none", "--entryPoints", ...entries];
  const td = spawnSync(typedoc, options, { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  if (td.status !== 0) {
    const said = `${td.stdout}${td.stderr}`.split("\n").filter((l) => l.trim() && !/^\[warning\] Found \d+/.test(l));
    problems.push(...said.map((l) => `TSDoc: ${l}`));
    if (said.length === 0) problems.push(`TSDoc: typedoc exited with ${td.status ?? td.signal}`);
  }
  tsdocLinks = "TSDoc links resolve";
}

const links = [...parsed.values()].reduce((n, p) => n + p.prose.join("\n").split("](").length - 1, 0);
if (problems.length > 0) {
  console.error(problems.join("\n"));
  console.error(`\ndocs check: ${problems.length} problem(s) in ${pages.length} pages.`);
  process.exit(1);
}
console.log(
  `docs check: ${pages.length} pages, ${links} links, ${files.length - 1} code blocks type-checked, ${tsdocLinks}: ok.`,
);
