#!/usr/bin/env node
// `npm run bench:demo`: the demo as a person meets it, on its production build (vite build + preview,
// loopback, Chromium): Send → first token of a reply, Send → the approval card, and the DOM writes of
// one streamed answer (MutationObserver records on the transcript, and how many of them rewrite
// `hidden`). The scripted model streams with its default 12 ms between chunks. 5 repetitions each,
// medians printed; each repetition in a fresh browser context, where a key is typed a second before
// the first Send (as a person types). `--url=<url>` measures a demo already served there instead
// (e.g. another checkout's build, for a baseline measured in the same run).
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright";
import { build, preview } from "vite";
import { CHROMIUM_ARGS, requireChromium } from "../scripts/chromium.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, ".tmp/demo-timing");
const REPS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Sends `text` and resolves with ms until `done(root)` first holds (checked on every mutation). */
function timeTo(page, text, until) {
  return page.evaluate(
    ([text, until]) =>
      new Promise((done) => {
        const root = document.querySelector("#transcript");
        const seen = root.querySelectorAll(".msg.assistant").length;
        const met = {
          token: () => {
            const b = root.querySelectorAll(".msg.assistant .content");
            return b.length > seen && (b[b.length - 1].textContent ?? "").length > 0;
          },
          card: () => root.querySelector(".approval-card") !== null,
        }[until];
        const input = document.querySelector("#prompt");
        input.value = text;
        input.dispatchEvent(new Event("input", { bubbles: true }));
        const start = performance.now();
        const observer = new MutationObserver(() => {
          if (!met()) return;
          observer.disconnect();
          done(performance.now() - start);
        });
        observer.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
        document.querySelector("#composer").requestSubmit();
      }),
    [text, until],
  );
}

/** The mutation records of one streamed answer, from Send until the page is idle again. */
function writes(page) {
  return page.evaluate(
    () =>
      new Promise((done) => {
        const root = document.querySelector("#transcript");
        const counts = { records: 0, attributes: 0, hidden: 0, childList: 0, characterData: 0 };
        const observer = new MutationObserver((records) => {
          for (const r of records) {
            counts.records++;
            counts[r.type]++;
            if (r.attributeName === "hidden") counts.hidden++;
          }
        });
        observer.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
        document.querySelector("#prompt").value = "Explain how approvals work";
        document.querySelector("#composer").requestSubmit();
        const poll = setInterval(() => {
          if (document.body.dataset.status !== "idle") return;
          clearInterval(poll);
          observer.disconnect();
          done(counts);
        }, 20);
      }),
  );
}

const given = process.argv.find((a) => a.startsWith("--url="))?.slice(6);
let server;
if (!given) {
  await build({ configFile: join(root, "vite.config.ts"), logLevel: "silent", build: { outDir, emptyOutDir: true } });
  server = await preview({
    configFile: join(root, "vite.config.ts"),
    logLevel: "silent",
    build: { outDir },
    preview: { port: 0, host: "127.0.0.1" },
  });
}
const url = given ?? server.resolvedUrls.local[0];
const browser = await chromium.launch({ executablePath: await requireChromium(), args: CHROMIUM_ARGS });
const result = { token: [], card: [], writes: [] };
try {
  for (let i = 0; i < REPS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector("body[data-status='idle']");
    // As a person does: type (the page warms up what a reply needs on the first key), then Send.
    await page.fill("#prompt", "h");
    await page.waitForTimeout(1000);
    result.token.push(await timeTo(page, "hello", "token"));
    await page.waitForSelector("body[data-status='idle']");
    result.writes.push(await writes(page));
    result.card.push(await timeTo(page, "Send 42 to Bob", "card"));
    await context.close();
  }
} finally {
  await browser.close();
  if (server) await new Promise((r) => server.httpServer.close(r));
}
const w = (k) => median(result.writes.map((x) => x[k]));
console.log(
  `Send → first token: median ${median(result.token).toFixed(0)} ms (${result.token.map((t) => t.toFixed(0)).join(", ")})`,
);
console.log(
  `Send → approval card: median ${median(result.card).toFixed(0)} ms (${result.card.map((t) => t.toFixed(0)).join(", ")})`,
);
console.log(
  `DOM writes per streamed answer (median): ${w("records")} records — ${w("childList")} childList, ` +
    `${w("characterData")} characterData, ${w("attributes")} attributes (${w("hidden")} rewrite [hidden])`,
);
