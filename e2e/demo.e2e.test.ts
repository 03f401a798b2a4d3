/**
 * The placeholder demo, end to end: Vite serves demo/, Chromium loads it, a prompt pauses on the
 * approval, Approve resumes it, and the transcript shows the tool result and the final answer.
 */
import { chromium, type Browser, type Page } from "playwright";
import { createServer, type ViteDevServer } from "vite";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CHROMIUM_ARGS, requireChromium } from "../scripts/chromium.mjs";

let server: ViteDevServer;
let browser: Browser;
let url: string;

beforeAll(async () => {
  // Port 0: the OS picks a free port, so a running `npm run demo` does not get in the way.
  server = await createServer({ configFile: "vite.config.ts", server: { port: 0, strictPort: false, host: "127.0.0.1" }, logLevel: "warn" });
  await server.listen();
  const local = server.resolvedUrls?.local[0];
  if (!local) throw new Error("vite did not report a URL");
  url = local;
  browser = await chromium.launch({ executablePath: await requireChromium(), args: CHROMIUM_ARGS, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function openDemo(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector("body[data-status='idle']");
  return { page, errors };
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill("#prompt", text);
  await page.click("#send");
  await page.waitForSelector("body[data-status='awaiting-approval']");
}

test("a prompt pauses for approval; Approve runs the tool and the answer streams in", async () => {
  const { page, errors } = await openDemo();
  await send(page, "send 42 to bob");
  await expect.poll(() => page.textContent("#approval-text")).toContain('"to":"bob"');
  // Paused before the tool: no tool result yet.
  expect(await page.locator("#transcript .tool").count()).toBe(0);
  await page.click("#approve");
  await page.waitForSelector("body[data-status='done']");
  const assistant = await page.locator("#transcript .assistant").allTextContents();
  expect(assistant.at(-1)).toBe("Done. Sent 42 to bob.");
  expect(await page.locator("#transcript .tool").allTextContents()).toEqual(["transfer → Sent 42 to bob."]);
  const types = await page.locator("#events li").evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset["type"]));
  for (const type of ["BeforeInvocationEvent", "BeforeModelCallEvent", "AfterModelCallEvent", "BeforeToolCallEvent", "AfterToolCallEvent", "MessageAddedEvent", "AfterInvocationEvent"]) {
    expect(types).toContain(type);
  }
  // The paused run and the resumed run each end with AfterInvocation.
  expect(types.filter((t) => t === "AfterInvocationEvent")).toHaveLength(2);
  expect(errors).toEqual([]);
  await page.close();
});

test("Deny keeps the tool from running and the model says so", async () => {
  const { page, errors } = await openDemo();
  await send(page, "send 7 to eve");
  await page.click("#deny");
  await page.waitForSelector("body[data-status='done']");
  const assistant = await page.locator("#transcript .assistant").allTextContents();
  expect(assistant.at(-1)).toContain("I did not make the transfer");
  expect(assistant.join(" ")).not.toContain("Sent 7 to eve");
  expect(errors).toEqual([]);
  await page.close();
});
