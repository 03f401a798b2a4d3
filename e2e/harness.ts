/**
 * What the demo's e2e tests share: one Vite server and one Chromium for the file, a fresh
 * browser context per test (clean IndexedDB and storage), and helpers that act like a person.
 * Any page error, console error or console warning fails the test that caused it.
 */
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright";
import { createServer, type ViteDevServer } from "vite";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { CHROMIUM_ARGS, requireChromium } from "../scripts/chromium.mjs";

let server: ViteDevServer;
let browser: Browser;
let url: string;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
const ARTIFACTS = "test-results/e2e";
const README_SHOTS = process.env["UPDATE_SCREENSHOTS"] === "1";

/** Registers the server, browser and per-test cleanup hooks (call once at the top of a test file). */
export function useDemo(): void {
  beforeAll(async () => {
    // Port 0: the OS picks a free port, so a running `npm run demo` does not get in the way.
    server = await createServer({
      configFile: "vite.config.ts",
      server: { port: 0, strictPort: false, host: "127.0.0.1" },
      logLevel: "warn",
    });
    await server.listen();
    const local = server.resolvedUrls?.local[0];
    if (!local) throw new Error("vite did not report a URL");
    url = local;
    browser = await chromium.launch({ executablePath: await requireChromium(), args: CHROMIUM_ARGS, headless: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    if (README_SHOTS) mkdirSync("docs/screenshots", { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
    const seen = problems.splice(0);
    expect(seen, "the page logged errors").toEqual([]);
  });
}

/** A fresh browser context (empty storage), closed after the test. */
export async function newContext(
  viewport = { width: 1280, height: 800 },
  colorScheme: "light" | "dark" = "light",
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport, colorScheme });
  contexts.push(context);
  return context;
}

/** Opens the demo in `context` and waits until it is ready. `?delay=2` makes the scripted model stream fast. */
export async function openDemo(context: BrowserContext, query = "?delay=2"): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console.${m.type()}: ${m.text()}`);
  });
  await page.goto(url + query);
  await page.waitForSelector("body[data-status='idle']");
  return page;
}

/** A page in a fresh context. The scripted model streams fast unless `query` says otherwise. */
export async function fresh(query = "?delay=2"): Promise<Page> {
  return openDemo(await newContext(), query);
}

/** Saves a screenshot to test-results/e2e/ (and docs/screenshots/ with UPDATE_SCREENSHOTS=1 when `forReadme`). */
export async function shot(page: Page, name: string, forReadme = false): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png` });
  if (forReadme && README_SHOTS) await page.screenshot({ path: `docs/screenshots/${name}.png` });
}

/** Sends a message and waits until the run asks a question (on its card) or ends. */
export async function ask(page: Page, text: string): Promise<"asked" | "answered"> {
  await page.fill("#prompt", text);
  await page.press("#prompt", "Enter");
  await page.waitForSelector("body[data-status='awaiting-approval'], body[data-status='idle']");
  return (await page.getAttribute("body", "data-status")) === "awaiting-approval" ? "asked" : "answered";
}

/** Opens the dialog of the first open question ("Details and edit" on its card). */
export async function openDetails(page: Page): Promise<void> {
  await page.click("#transcript .approval-card [data-action='review']");
  await page.waitForSelector("dialog#approval[open]");
}

/**
 * Sends a message and waits until the run asks or ends; when it asks, opens the question in the
 * dialog (the focused view of the card), as most tests decide there.
 */
export async function say(page: Page, text: string): Promise<"asked" | "answered"> {
  const outcome = await ask(page, text);
  if (outcome === "asked") await openDetails(page);
  return outcome;
}

/** The text of the assistant's last bubble. */
export async function lastAnswer(page: Page): Promise<string> {
  return (await page.locator("#transcript .msg.assistant .content").last().textContent()) ?? "";
}

/** Waits until no run is in progress and nothing waits for approval. */
export async function settle(page: Page): Promise<void> {
  await page.waitForSelector("body[data-status='idle']");
}

/** How many times each bank tool ran, from the page's ledger. */
export const counts = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { __demo: { counts: Record<string, number> } }).__demo.counts);

const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * Runs axe-core on the page as it is and returns its serious and critical violations, each as
 * "rule: target …" (an empty list passes).
 */
export async function axeProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.addScriptTag({ path: AXE_SOURCE });
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(o: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const { violations } = await axe.run({ resultTypes: ["violations"] });
    return violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
}
