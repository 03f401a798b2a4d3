/**
 * Proof that the built package runs on Web APIs only: one pause/resume scenario, bundled from
 * dist/ without polyfills, run in headless Chromium, in workerd (miniflare) and in Deno.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";
import { chromium } from "playwright";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM_ARGS, requireChromium } from "../../scripts/chromium.mjs";
import { ROOT, bundleEntry, ensureDist } from "./bundle.js";
import { expectedOutcome, type ScenarioOutcome } from "./expected.js";

const run = promisify(execFile);
let dir: string;

beforeAll(() => {
  ensureDist();
  dir = mkdtempSync(join(tmpdir(), "kaboo-runtimes-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function checkOutcome(outcome: ScenarioOutcome, userAgent: RegExp): void {
  const { userAgent: ua, ...rest } = outcome;
  expect(ua).toMatch(userAgent);
  expect(rest).toEqual(expectedOutcome);
}

describe("the scenario, bundled from dist/", () => {
  test("runs in headless Chromium", async () => {
    const code = await bundleEntry("entry-browser.ts");
    const html = `<!doctype html><meta charset="utf-8"><title>kaboo runtime proof</title><script type="module" src="/scenario.js"></script>`;
    // A loopback origin makes a secure context (crypto.randomUUID, indexedDB), like a real page.
    const server: Server = createServer((req, res) => {
      if (req.url === "/scenario.js") res.writeHead(200, { "content-type": "text/javascript" }).end(code);
      else if (req.url === "/") res.writeHead(200, { "content-type": "text/html" }).end(html);
      else res.writeHead(404).end();
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const browser = await chromium.launch({
      executablePath: await requireChromium(),
      args: CHROMIUM_ARGS,
      headless: true,
    });
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (e) => pageErrors.push(e.message));
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const handle = await page.waitForFunction(() => {
        const g = globalThis as { __scenario?: unknown; __scenarioError?: string };
        return g.__scenario ?? (g.__scenarioError !== undefined ? { error: g.__scenarioError } : undefined);
      });
      const outcome = (await handle.jsonValue()) as ScenarioOutcome | { error: string };
      expect(pageErrors).toEqual([]);
      if ("error" in outcome) throw new Error(`scenario failed in Chromium: ${outcome.error}`);
      checkOutcome(outcome, /HeadlessChrome|Chrome/);
    } finally {
      await browser.close();
      await new Promise((ok) => server.close(ok));
    }
  });

  test("runs in workerd through miniflare", async () => {
    const script = await bundleEntry("entry-worker.ts");
    const mf = new Miniflare({ modules: true, script, compatibilityDate: "2025-01-01" });
    try {
      const res = await mf.dispatchFetch("http://localhost/scenario");
      const body = await res.text();
      expect(res.status, body).toBe(200);
      checkOutcome(JSON.parse(body) as ScenarioOutcome, /Cloudflare-Workers/);
    } finally {
      await mf.dispose();
    }
  });

  test("runs in Deno with no permissions", async () => {
    const file = join(dir, "scenario.deno.mjs");
    writeFileSync(file, await bundleEntry("entry-deno.ts"));
    // --no-prompt: a permission the scenario should not need fails the run instead of waiting.
    const { stdout } = await run(
      join(ROOT, "node_modules/.bin/deno"),
      ["run", "--no-prompt", "--no-config", "--no-npm", "--no-remote", file],
      {
        cwd: dir,
        env: { ...process.env, DENO_DIR: join(dir, "deno-cache"), NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      },
    );
    const line = stdout.trim().split("\n").at(-1) ?? "";
    checkOutcome(JSON.parse(line) as ScenarioOutcome, /Deno/);
  });
});
