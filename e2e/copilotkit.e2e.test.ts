/**
 * examples/copilotkit end to end: CopilotKit's own chat (React, @copilotkit/react-core v2) driving a
 * KabooAgent in the page, approvals rendered through CopilotKit's useInterrupt. The example keeps
 * its own package.json and lockfile; its tree is installed here (from the npm cache when it can),
 * bundled with esbuild, served from loopback and driven in Chromium. Each test gets a fresh browser
 * context, so IndexedDB and localStorage start empty.
 */
import type { Server } from "node:http";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { bundleExample, installExample, serveExample } from "../examples/copilotkit/build.mjs";
import { CHROMIUM_ARGS, requireChromium } from "../scripts/chromium.mjs";
import { axeProblems } from "./harness.js";

const out = join(resolve(fileURLToPath(import.meta.url), "../.."), ".tmp/copilotkit");

let server: Server;
let url: string;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  installExample();
  await bundleExample(out);
  ({ server, url } = await serveExample(out));
  browser = await chromium.launch({ executablePath: await requireChromium(), args: CHROMIUM_ARGS, headless: true });
}, 600_000);

afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((ok) => server?.close(ok));
});

async function open(viewport = { width: 1280, height: 800 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(url);
  await page.locator("textarea").first().waitFor();
  return page;
}

async function say(page: Page, text: string): Promise<void> {
  const input = page.locator("textarea").first();
  await input.fill(text);
  await input.press("Enter");
}

const chatText = async (page: Page) =>
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText (the rendered text, line breaks included), not the DOM property
  (await page.getByTestId("copilot-message-list").innerText()).replace(/\s+/g, " ");
const transfers = (page: Page) =>
  page.evaluate(() => JSON.parse(localStorage.getItem("transfers") ?? "[]") as unknown[]);

test("chat: a message gets the agent's answer in CopilotKit's chat", async () => {
  const page = await open();
  await say(page, "hello there");
  await expect.poll(() => chatText(page)).toContain("You said: hello there");
});

test("approve: the approval renders through useInterrupt; approving runs the tool once", async () => {
  const page = await open();
  await say(page, "pay alice 5");
  const approval = page.getByTestId("approval");
  await approval.waitFor();
  // A styled card in words with its details as fields, never raw JSON.
  expect(await approval.getByRole("heading").textContent()).toBe("Send 5 to alice?");
  expect(await approval.textContent()).not.toContain("{");
  expect(await approval.getByLabel("Recipient").inputValue()).toBe("alice");
  expect(await approval.getByLabel("Amount").inputValue()).toBe("5");
  expect(
    await approval.getByRole("button", { name: "Approve" }).evaluate((b) => getComputedStyle(b).backgroundColor),
  ).toBe("rgb(79, 70, 229)");
  expect(await transfers(page)).toEqual([]);
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect.poll(() => chatText(page)).toContain("The transfer is done.");
  expect(await transfers(page)).toEqual([{ to: "alice", amount: 5 }]);
  expect(await page.getByTestId("approval").count()).toBe(0);
  // The decision stays in the chat.
  const row = page.getByTestId("transfer-row");
  await expect.poll(() => row.getAttribute("data-state")).toBe("approved");
  expect(await row.textContent()).toContain("Approved");
});

test("edit: a changed amount is what runs", async () => {
  const page = await open();
  await say(page, "pay alice 5");
  const approval = page.getByTestId("approval");
  await approval.waitFor();
  await approval.getByLabel("Amount").fill("0");
  expect(await approval.textContent()).toContain("Enter an amount above 0, in numbers.");
  expect(await approval.getByRole("button", { name: "Approve" }).isDisabled()).toBe(true);
  await approval.getByLabel("Amount").fill("8");
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect.poll(() => chatText(page)).toContain("The transfer is done.");
  expect(await transfers(page)).toEqual([{ to: "alice", amount: 8 }]);
});

test("typing while the approval waits gets a clear answer, and the approval still works", async () => {
  const page = await open();
  await say(page, "pay carol 3");
  await page.getByTestId("approval").waitFor();
  await say(page, "hello?");
  await expect.poll(() => page.getByTestId("notice").isVisible()).toBe(true);
  expect(await page.getByTestId("notice").textContent()).toContain("answer the approval above first");
  await page.getByTestId("approval").getByRole("button", { name: "Deny" }).click();
  await expect.poll(() => chatText(page)).toContain("I did not send it.");
  expect(await transfers(page)).toEqual([]);
});

test("deny: the tool never runs and the model reads the denial", async () => {
  const page = await open();
  await say(page, "pay eve 9");
  await page.getByTestId("approval").getByRole("button", { name: "Deny" }).click();
  await expect.poll(() => chatText(page)).toContain("I did not send it.");
  expect(await transfers(page)).toEqual([]);
  const row = page.getByTestId("transfer-row");
  await expect.poll(() => row.getAttribute("data-state")).toBe("denied");
  expect(await row.textContent()).toContain("Denied");
});

test("reload mid-approval: the chat and the open approval come back; approving runs the tool exactly once", async () => {
  const page = await open();
  await say(page, "pay bob 7");
  await page.getByTestId("approval").waitFor();
  await page.reload();
  const approval = page.getByTestId("approval");
  await approval.waitFor();
  expect(await chatText(page)).toContain("pay bob 7");
  expect(await transfers(page)).toEqual([]);
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect.poll(() => chatText(page)).toContain("The transfer is done.");
  expect(await transfers(page)).toEqual([{ to: "bob", amount: 7 }]);
  // Another reload replays the finished conversation; nothing runs again.
  await page.reload();
  await expect.poll(() => chatText(page)).toContain("The transfer is done.");
  expect(await page.getByTestId("approval").count()).toBe(0);
  expect(await transfers(page)).toEqual([{ to: "bob", amount: 7 }]);
});

test("axe: no serious or critical finding, waiting for an approval and after it (1280 and 375 px)", async () => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 375, height: 812 },
  ]) {
    const page = await open(viewport);
    expect(await axeProblems(page), `${viewport.width}px empty`).toEqual([]);
    await say(page, "pay alice 5");
    await page.getByTestId("approval").waitFor();
    expect(await axeProblems(page), `${viewport.width}px approval`).toEqual([]);
    await page.getByTestId("approval").getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => chatText(page)).toContain("The transfer is done.");
    expect(await axeProblems(page), `${viewport.width}px approved`).toEqual([]);
  }
});
