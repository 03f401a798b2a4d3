/**
 * examples/ai-sdk end to end in Chromium: the AI SDK's own chat client in the page, the example's
 * streamText server with kabooToolApproval and withLedger. The approval is answered with "Always";
 * after a reload (a new conversation in the page), the next transfer to the same payee is not asked.
 */
import { type Browser, chromium, type Page } from "playwright";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startExample } from "../examples/ai-sdk/serve.mjs";
import { CHROMIUM_ARGS, requireChromium } from "../scripts/chromium.mjs";

let example: { url: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  example = await startExample();
  browser = await chromium.launch({ executablePath: await requireChromium(), args: CHROMIUM_ARGS, headless: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await example?.close();
});

async function say(page: Page, text: string): Promise<void> {
  await page.locator("#composer input").fill(text);
  await page.locator("#composer input").press("Enter");
}

test("an approval answered 'Always' is not asked again after a reload", async () => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(example.url);
  await say(page, "pay ann 5");
  const card = page.locator(".approval");
  await expect.poll(() => card.textContent()).toContain("Allow transfers to ann?");
  await card.getByRole("button", { name: "Always" }).click();
  await expect.poll(() => page.locator("#log").textContent()).toContain("Sent 5 to ann.");
  await page.goto(new URL("/", example.url).href);
  await page.reload();
  await say(page, "pay ann 6");
  await expect.poll(() => page.locator("#log").textContent()).toContain("Sent 6 to ann.");
  expect(await page.locator(".approval").count()).toBe(0);
  // Another payee is still asked.
  await say(page, "pay bob 1");
  await expect.poll(() => page.locator(".approval").textContent()).toContain("Allow transfers to bob?");
  expect(errors).toEqual([]);
});
