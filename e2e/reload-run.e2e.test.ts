/**
 * A run survives a reload of the demo page: the reloaded page continues it from its last checkpoint
 * (KabooAgent + IndexedDB), with no UI of its own for it — `connectAgent()` on opening the thread.
 */
import { expect, test } from "vitest";
import { counts, fresh, lastAnswer, openDetails, say, settle, useDemo } from "./harness.js";

useDemo();

test("a reload during a streamed answer: the question stays and the answer is asked for again and finishes", async () => {
  const page = await fresh("?delay=20");
  await page.fill("#prompt", "Explain how approvals work");
  await page.press("#prompt", "Enter");
  await page.waitForSelector("body[data-status='running']");
  await expect.poll(() => lastAnswer(page).then((t) => t.length), { timeout: 10_000 }).toBeGreaterThan(100);
  await page.reload();
  await settle(page);
  // The reloaded page shows the question and a whole answer (the scripted model ends its answers with one).
  expect(await page.locator("#transcript .msg.user").allTextContents()).toEqual([
    expect.stringContaining("Explain how approvals work"),
  ]);
  await expect.poll(() => lastAnswer(page).then((t) => t.length), { timeout: 20_000 }).toBeGreaterThan(300);
  expect(await page.locator("#transcript .msg.assistant").count()).toBe(1);
});

test("a reload right after approving, before the transfer ran: it runs once and is never approved again", async () => {
  const page = await fresh("?delay=2&bankms=1500");
  expect(await say(page, "Send 5 to Bob")).toBe("asked");
  await page.click("#approve-once");
  await page.waitForSelector("#transcript .tool-row[data-status='running']");
  await page.reload();
  await page.waitForSelector("body[data-status='idle'], body[data-status='awaiting-approval']");
  // A claim without a result is asked about (did it go through?); the approval itself never comes back.
  if ((await page.getAttribute("body", "data-status")) === "awaiting-approval") {
    await openDetails(page).catch(() => undefined);
    expect(await page.getAttribute("dialog#approval", "data-state")).toBe("unknown");
    await page.click("#unknown-again");
  }
  await settle(page);
  await expect.poll(() => lastAnswer(page), { timeout: 15_000 }).toContain("Sent €5.00 to Bob");
  expect((await counts(page))["transfer"]).toBe(1);
});
