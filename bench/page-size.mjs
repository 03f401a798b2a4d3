#!/usr/bin/env node
// `npm run bench:page-size`: what a real page ships, measured whole. A small app (an agent with one tool,
// one approval gate, KabooAgent with IndexedDB grants and session records, on the scripted model) is built
// with vite from the built package (dist/, as an app that installed it imports it) and the repository's one
// zod (3.25, what `@ag-ui/client` 1.x resolves), every chunk minified by vite and gzipped at level 9:
// what loads at start (the entry and its static imports), what loads with the first run (the runner, the
// gate's steps and the rest the first gated run imports), and everything. Which chunk loads when is read from
// the import graph, then checked in Chromium (when one is found): the page is opened and its button clicked.
// Then, built the same way in the same run, the baseline: a page that runs a bare AG-UI agent (an
// `AbstractAgent` subclass from `@ag-ui/client` emitting one event), what any AG-UI page (CopilotKit's
// included) already ships; the difference is what this package adds to such a page.
// Needs `npm run build` first (dist/).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { createServer } from "node:http";
import { build } from "vite";
import { CHROMIUM_ARGS, findChromium } from "../scripts/chromium.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, ".tmp/page-size/out");

const MAIN = `
import { Agent, ScriptedModel, tool } from "kaboo-workflows";
import { InterruptHook } from "kaboo-workflows/hooks";
import { IndexedDbGrantStore } from "kaboo-workflows/grants";
import { KabooAgent, IndexedDbSessionStore } from "kaboo-workflows/agui";
import * as z from "zod/v4/mini";

const transfer = tool({
  name: "transfer",
  description: "Send money.",
  inputSchema: z.object({ to: z.string(), amount: z.number() }),
  callback: ({ to, amount }) => "sent " + amount + " to " + to,
});
const model = new ScriptedModel({
  script: ({ lastToolResults }) =>
    lastToolResults.length ? { text: "Done." } : { toolCalls: [{ name: "transfer", input: { to: "bob", amount: 5 } }] },
});
const agent = new KabooAgent({
  threadId: "t1",
  agent: () => new Agent({ model, tools: [transfer], hooks: [new InterruptHook(["transfer"])] }),
  grantStore: new IndexedDbGrantStore(),
  sessionStore: new IndexedDbSessionStore(),
});
document.querySelector("button").addEventListener("click", async () => {
  agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "pay bob 5" });
  await agent.runAgent();
});
`;

/** Gzip size of a built file. */
const gz = (file, dir = outDir) => gzipSync(readFileSync(join(dir, file)), { level: 9 }).byteLength;

const BARE = `
import { AbstractAgent } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { Observable } from "rxjs";
class Bare extends AbstractAgent {
  run(input) {
    return new Observable((s) => {
      s.next({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId });
      s.complete();
    });
  }
}
const agent = new Bare({ threadId: "t1" });
document.querySelector("button").addEventListener("click", () => agent.runAgent());
`;

/** Builds `main` as a page's script with vite into `out`; the manifest read back. */
async function buildPage(main, out, alias = []) {
  const dir = join(out, "..", "app");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "index.html"),
    '<!doctype html><button>Pay</button><script type="module" src="./main.js"></script>\n',
  );
  writeFileSync(join(dir, "main.js"), main);
  await build({
    root: dir,
    configFile: false,
    logLevel: "silent",
    resolve: { alias },
    build: { outDir: out, emptyOutDir: true, manifest: "manifest.json", modulePreload: false },
  });
  return JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
}

/** Gzip size of every chunk of the bare AG-UI page (the baseline), built in this run. */
export async function barePageSize() {
  const out = join(root, ".tmp/page-size-bare/out");
  const manifest = await buildPage(BARE, out);
  return Object.values(manifest)
    .filter((m) => m.file.endsWith(".js"))
    .reduce((n, m) => n + gz(m.file, out), 0);
}

/**
 * Builds the page and returns the gzip sizes of what it loads at start, with the first run, and in all.
 * @returns {Promise<{ start: number, firstRun: number, all: number, chunks: { file: string, gzip: number, when: string }[] }>}
 */
export async function pageSize() {
  const dist = (entry) => join(root, "dist", entry);
  const manifest = await buildPage(MAIN, outDir, [
    { find: /^kaboo-workflows$/, replacement: dist("index.js") },
    { find: /^kaboo-workflows\/hooks$/, replacement: dist("hooks/index.js") },
    { find: /^kaboo-workflows\/grants$/, replacement: dist("grants/index.js") },
    { find: /^kaboo-workflows\/agui$/, replacement: dist("agui/index.js") },
  ]);
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
  const start = new Set();
  const walk = (key, into) => {
    if (into.has(key)) return;
    into.add(key);
    for (const dep of manifest[key].imports ?? []) walk(dep, into);
  };
  walk(entry, start);
  // What a gated run loads: every chunk reachable through dynamic imports (the runner, the gate's steps and
  // what they import), but those three, which load only when a run needs them and this page's does not: the glob
  // engine (a glob rule; this page names its tool), grant signing (a grant secret, a server's) and the media trim
  // (a transcript past the media budget).
  const later = new Set();
  for (const key of start) for (const dyn of manifest[key].dynamicImports ?? []) walk(dyn, later);
  for (const key of [...later]) for (const dyn of manifest[key].dynamicImports ?? []) walk(dyn, later);
  const only = (key) =>
    /nonrecursive-glob-match|glob-matcher/.test(key)
      ? "glob rules only"
      : /grants\/signing/.test(key)
        ? "a secret only"
        : /media-trim/.test(key)
          ? "media over budget"
          : undefined;
  const chunks = Object.keys(manifest)
    .filter((k) => manifest[k].file.endsWith(".js"))
    .map((k) => ({
      file: manifest[k].file,
      gzip: gz(manifest[k].file),
      when: start.has(k) ? "start" : (only(k) ?? "later"),
    }));
  const sum = (when) => chunks.filter((c) => when(c.when)).reduce((n, c) => n + c.gzip, 0);
  return {
    start: sum((w) => w === "start"),
    firstRun: sum((w) => w === "later"),
    all: sum(() => true),
    chunks,
  };
}

/**
 * Opens the built page in Chromium, clicks Pay (a run that stops at the gate's question), and returns the chunks
 * fetched at start and through that first gated run; `undefined` when no Chromium is found.
 * @returns {Promise<{ start: string[], firstRun: string[] } | undefined>}
 */
export async function loadedInChromium() {
  const executablePath = await findChromium();
  const { chromium } = await import("playwright");
  if (!executablePath && !existsSync(chromium.executablePath())) return undefined;
  const server = createServer((req, res) => {
    const file = join(outDir, req.url === "/" ? "index.html" : (req.url ?? "").split("?")[0]);
    if (!file.startsWith(outDir) || !existsSync(file)) return res.writeHead(404).end();
    const type = file.endsWith(".js") ? "text/javascript" : "text/html";
    res.writeHead(200, { "content-type": type }).end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const origin = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const fetched = [];
    page.on("requestfinished", (r) => r.url().endsWith(".js") && fetched.push(r.url().slice(origin.length)));
    await page.goto(origin, { waitUntil: "networkidle" });
    const start = fetched.splice(0);
    await page.click("button");
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(500);
    return { start, firstRun: fetched };
  } finally {
    await browser.close();
    server.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { start, firstRun, all, chunks } = await pageSize();
  const kib = (n) => `${(n / 1024).toFixed(1).padStart(6)} KiB`;
  for (const c of chunks.sort((a, b) => b.gzip - a.gzip)) console.log(`${kib(c.gzip)}  ${c.when.padEnd(15)} ${c.file}`);
  console.log(`${kib(start)}  at start`);
  console.log(`${kib(firstRun)}  with the first run (the runner, the gate, …)`);
  console.log(`${kib(start + firstRun)}  what the page loads through its first gated run`);
  console.log(`${kib(all)}  every chunk (gzip), those loaded only when a run needs them included`);
  // The "when" column, checked in a browser: what Chromium fetched at start and with the first gated run.
  const seen = await loadedInChromium();
  if (!seen) console.log("(no Chromium found: which chunks load when is read from the import graph, unchecked)");
  else {
    const expected = (when) =>
      chunks
        .filter((c) => c.when === when)
        .map((c) => c.file)
        .sort()
        .join(" ");
    const agree =
      seen.start.sort().join(" ") === expected("start") && seen.firstRun.sort().join(" ") === expected("later");
    console.log(
      agree
        ? "Chromium fetched exactly these: the start chunks on load, the later ones with the first gated run"
        : `Chromium fetched other chunks: at start ${seen.start.join(" ")}; with the first gated run ${seen.firstRun.join(" ")}`,
    );
  }
  const bare = await barePageSize();
  console.log(`${kib(bare)}  a bare AG-UI page (an AbstractAgent subclass), built in this run: the baseline`);
  console.log(
    `${kib(start + firstRun - bare)}  what this package adds to it through the first gated run (${((start + firstRun) / bare).toFixed(2)}×); ${kib(all - bare).trim()} every chunk (${(all / bare).toFixed(2)}×)`,
  );
}
