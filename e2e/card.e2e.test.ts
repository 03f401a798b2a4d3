/**
 * Deciding on the card in the conversation: Approve, Deny and the remembering choices are on the
 * card itself (the dialog is only the focused view of the same question), several open questions are
 * answered one card at a time, an edit that changes the recipient asks again and says why, and a
 * request past its deadline stops saying "Needs your approval".
 */
import { expect, test } from "vitest";
import type { Page } from "playwright";
import { ask, counts, fresh, lastAnswer, openDetails, settle, shot, useDemo } from "./harness.js";

useDemo();

const card = (page: Page, n = 0) => page.locator("#transcript .approval-card").nth(n);
const dialogOpened = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { __opened?: boolean }).__opened === true);

async function watchDialog(page: Page): Promise<void> {
  await page.evaluate(() => {
    const d = document.querySelector<HTMLDialogElement>("dialog#approval")!;
    new MutationObserver(() => {
      if (d.open) (globalThis as unknown as { __opened: boolean }).__opened = true;
    }).observe(d, { attributes: true });
  });
}

test("Approve on the card runs the transfer once; the dialog never opens", async () => {
  const page = await fresh();
  await watchDialog(page);
  expect(await ask(page, "Send 42 to Bob")).toBe("asked");
  expect(await card(page).locator(".card-headline").textContent()).toBe("Send €42.00 to Bob?");
  expect(await card(page).locator(".facts dd").allTextContents()).toEqual(["Bob", "€42.00", "Checking"]);
  // Focus starts on the choice that cannot move money.
  await expect
    .poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset["decision"]))
    .toBe("deny");
  expect(await card(page).locator(".card-remember button").allTextContents()).toEqual([
    "Approve for this conversation",
    "Always approve transfers to Bob",
  ]);
  await shot(page, "approval-card-inline", true);
  await card(page).locator("[data-decision='once']").click();
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €42.00 to Bob");
  expect((await counts(page))["transfer"]).toBe(1);
  expect(await dialogOpened(page)).toBe(false);
});

test("'Always approve transfers to Bob' on the card remembers it; the next transfer to Bob does not ask", async () => {
  const page = await fresh();
  await ask(page, "Send 5 to Bob");
  await card(page).locator("[data-decision='always']").click();
  await settle(page);
  await expect.poll(() => page.locator("#grants .grant").count()).toBe(1);
  expect(await ask(page, "Send 6 to Bob")).toBe("answered");
  expect((await counts(page))["transfer"]).toBe(2);
});

test("two questions, one card each: approve one, deny the other; each does what it said", async () => {
  const page = await fresh();
  expect(await ask(page, "send 5 to bob and 10 to alice")).toBe("asked");
  await card(page, 0).locator("[data-decision='once']").click();
  await expect.poll(() => card(page, 0).locator(".tool-status").textContent()).toBe("Answered");
  expect(await card(page, 1).locator(".tool-status").textContent()).toBe("Needs your approval");
  await card(page, 1).locator("[data-decision='deny']").click();
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €5.00 to Bob");
  expect(await lastAnswer(page)).toContain("you declined the transfer");
  expect(await page.locator("#transcript .tool-row .tool-status").allTextContents()).toEqual(["Done", "Declined"]);
  expect((await counts(page))["transfer"]).toBe(1);
});

test("an edit that changes the recipient asks again, and the card says why", async () => {
  const page = await fresh();
  await ask(page, "Send 42 to Bob");
  await openDetails(page);
  await page.click("#edit-toggle");
  await page.fill("#edit-to", "carol");
  await expect.poll(() => page.textContent("#approval-title")).toBe("Send €42.00 to Carol?");
  await page.click("#approve-once");
  await page.waitForSelector("body[data-status='awaiting-approval']");
  await expect.poll(() => card(page).locator(".card-headline").textContent()).toBe("Send €42.00 to Carol?");
  expect(await card(page).locator(".card-reason").textContent()).toBe(
    "You changed the recipient, so this asks again: your yes was for someone else, not Carol.",
  );
  await card(page).locator("[data-decision='once']").click();
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €42.00 to Carol");
  expect((await counts(page))["transfer"]).toBe(1);
});

test("after a wire's deadline the card says it expired, not 'Needs your approval'; Dismiss tells the assistant", async () => {
  const page = await fresh("?delay=2&ttl=2");
  expect(await ask(page, "Wire 900 EUR to Lena DE44500105175407324931")).toBe("asked");
  expect(await card(page).locator(".tool-status").textContent()).toBe("Needs your approval");
  await expect.poll(() => card(page).locator(".tool-status").textContent(), { timeout: 6000 }).toBe("Expired");
  expect(await card(page).textContent()).not.toContain("Needs your approval");
  expect(await card(page).locator("[data-decision]").allTextContents()).toEqual(["Dismiss"]);
  await card(page).locator("[data-decision='dismiss']").click();
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("expired before it was answered");
  expect(await page.textContent("#transcript .tool-row .tool-status")).toBe("Expired");
  expect((await counts(page))["wire_abroad"]).toBeUndefined();
});
