/**
 * The demo walked as a demanding bank customer (issue 37): a conversation that goes on after one
 * payment is approved and the next denied, a persona that cannot stand in for a second person,
 * words that say what happens, an audit trail a customer can read, and the small things.
 */
import { expect, test } from "vitest";
import type { BrowserContext, Page } from "playwright";
import {
  ask,
  axeProblems,
  counts,
  fresh,
  lastAnswer,
  newContext,
  openDemo,
  openDetails,
  settle,
  useDemo,
} from "./harness.js";

useDemo();

const card = (page: Page, n = 0) => page.locator("#transcript .approval-card").nth(n);

/** The requester asks for a wire over the four-eyes threshold in one tab; returns their page. */
async function requestBigWire(context: BrowserContext, text: string): Promise<Page> {
  const mine = await openDemo(context);
  expect(await ask(mine, text)).toBe("asked");
  await expect.poll(() => card(mine).locator(".tool-status").textContent()).toBe("Needs a second person");
  return mine;
}

/** The partner, in a second tab of the same browser, opens the conversation titled `title`. */
async function partnerOpens(context: BrowserContext, title: string): Promise<Page> {
  const theirs = await openDemo(context);
  await theirs.selectOption("#persona", "partner");
  await theirs.click(`#thread-list .thread:has-text('${title}')`);
  await theirs.waitForSelector("body[data-status='awaiting-approval']");
  return theirs;
}

test("approve the first payment, deny the second: the conversation goes on", async () => {
  const page = await fresh();
  expect(await ask(page, "pay bob 5, then 20 to carol")).toBe("asked");
  await card(page, 0).locator("[data-decision='once']").click();
  await expect.poll(() => card(page, 0).locator(".tool-status").textContent()).toBe("Answered");
  await card(page, 1).locator("[data-decision='deny']").click();
  await settle(page);
  expect((await counts(page))["transfer"]).toBe(1);
  expect(await ask(page, "what's my balance?")).toBe("answered");
  await expect.poll(() => lastAnswer(page)).toMatch(/Checking/);
  expect(await page.textContent("#transcript")).not.toContain("MESSAGES_SNAPSHOT");
});

test("'unfreeze my card' never proposes a freeze: nothing is asked, nothing runs, the answer says what to do", async () => {
  const page = await fresh();
  for (const text of ["unfreeze my card", "Please unblock my card 4821"]) {
    expect(await ask(page, text)).toBe("answered");
    await expect.poll(() => lastAnswer(page)).toMatch(/can't unfreeze a card from here/);
  }
  expect(await page.locator("#transcript .approval-card").count()).toBe(0);
  expect(await page.textContent("#transcript")).not.toMatch(/Freeze card/);
  expect((await counts(page))["freeze_card"]).toBeUndefined();
  // A freeze is still a freeze.
  expect(await ask(page, "freeze my card")).toBe("asked");
});

test("the partner reads who asked in their own words, and the threshold names the wire's currency", async () => {
  const context = await newContext();
  const mine = await requestBigWire(context, "Wire 11000 USD to Lena FR1420041010050500013M02606");
  expect(await card(mine).locator(".four-eyes").textContent()).toContain("A wire over $10,000 needs a second person");
  const theirs = await partnerOpens(context, "Wire 11000");
  const note = (await card(theirs).locator(".four-eyes").textContent()) ?? "";
  expect(note).toContain("Your partner asked for this wire.");
  expect(note).not.toMatch(/^You asked/);
  expect(note).toContain("over $10,000");
});

test("a persona switch cannot stand in for a second person: the tab that asked stays the requester", async () => {
  const context = await newContext();
  const mine = await requestBigWire(context, "Wire 11000 EUR to Lena FR1420041010050500013M02606");
  expect(await card(mine).locator(".four-eyes").textContent()).toContain(
    "switching “Acting as” here cannot approve it",
  );
  // The switch is locked, and says why.
  expect(await mine.isDisabled("#persona")).toBe(true);
  expect(await mine.textContent("#persona-note")).toMatch(/open a new tab/);
  expect(await axeProblems(mine), "locked persona switch").toEqual([]);
  // Changed anyway (devtools), it does not take: still the requester, who can only withdraw.
  await mine.evaluate(() => {
    const select = document.querySelector<HTMLSelectElement>("#persona")!;
    select.disabled = false;
    select.value = "partner";
    select.dispatchEvent(new Event("change"));
  });
  expect(await mine.getAttribute("body", "data-persona")).toBe("you");
  expect(await mine.inputValue("#persona")).toBe("you");
  // Nor does the switch's stored choice, edited by hand: the tab stays the one it acted as.
  await mine.evaluate(() => sessionStorage.setItem("kaboo-demo:persona", "partner"));
  expect(await card(mine).locator("[data-decision]").allTextContents()).toEqual(["Withdraw"]);
  // Through a reload too.
  await mine.reload();
  await mine.waitForSelector("body[data-status='awaiting-approval']");
  expect(await mine.isDisabled("#persona")).toBe(true);
  expect(await mine.getAttribute("body", "data-persona")).toBe("you");
  expect(await card(mine).locator("[data-decision]").allTextContents()).toEqual(["Withdraw"]);
  expect((await counts(mine))["wire_abroad"] ?? 0).toBe(0);
  // The other person, in their own tab, still can.
  const theirs = await partnerOpens(context, "Wire 11000");
  await card(theirs).locator("[data-decision='once']").click();
  await settle(theirs);
  expect((await counts(theirs))["wire_abroad"]).toBe(1);
});

test("the audit panel speaks a customer's words and shows a revocation", async () => {
  const page = await fresh();
  expect(await ask(page, "Send 42 to Bob")).toBe("asked");
  await card(page).locator("[data-decision='always']").click();
  await settle(page);
  const items = page.locator("#audit .audit-list li");
  await expect.poll(() => items.count()).toBeGreaterThanOrEqual(3);
  const text = () => page.textContent("#audit");
  await expect.poll(text).toContain("You approved the transfer from now on");
  expect(await text()).toContain("The transfer was carried out");
  expect(await text()).not.toMatch(/Asked about|transfer ran|\(success\)|\b1 entries|chain intact/);
  await page.click("#grants .grant button");
  await expect.poll(text).toContain("You revoked 1 remembered approval");
  expect(await axeProblems(page), "audit panel after a revoke").toEqual([]);
  await expect
    .poll(() => page.textContent("#audit .audit-status"))
    .toMatch(/^\d+ entries, none changed since written$/);
});

test("the requester's own typed yes on a four-eyes wire is answered in words, not refused silently", async () => {
  const context = await newContext();
  const mine = await requestBigWire(context, "Wire 11000 EUR to Lena FR1420041010050500013M02606");
  await mine.fill("#prompt", "yes");
  await mine.press("#prompt", "Enter");
  await expect.poll(() => mine.textContent("#toast")).toMatch(/Your yes cannot approve this wire: it is over €10,000/);
  expect(await mine.isVisible("#toast")).toBe(true);
  expect(await card(mine).locator(".tool-status").textContent()).toBe("Needs a second person");
  expect((await counts(mine))["wire_abroad"] ?? 0).toBe(0);
});

test("an expired wire's dialog says it expired and no longer asks its question", async () => {
  const page = await fresh("?delay=2&ttl=2");
  expect(await ask(page, "Wire 900 EUR to Lena DE44500105175407324931")).toBe("asked");
  await openDetails(page);
  expect(await page.textContent("#approval-title")).toMatch(/\?$/);
  await page.waitForSelector("dialog#approval[data-state='expired']", { timeout: 6000 });
  expect(await page.textContent("#approval-title")).toBe("This request expired");
  const message = (await page.textContent("#approval-message")) ?? "";
  expect(message).toContain("was not answered in time");
  expect(message).not.toMatch(/\?$/);
  expect(await axeProblems(page)).toEqual([]);
});

test("375 px: a code block scrolls by keyboard, the model badge stays on one line, axe finds nothing serious", async () => {
  const page = await openDemo(await newContext({ width: 375, height: 812 }));
  expect(await ask(page, "Explain how approvals work")).toBe("answered");
  await settle(page);
  const pre = page.locator("#transcript .msg.assistant pre").last();
  await pre.waitFor();
  expect(await pre.getAttribute("tabindex")).toBe("0");
  expect(await axeProblems(page)).toEqual([]);
  const badge = await page.evaluate(() => {
    const b = document.querySelector<HTMLElement>("#open-settings")!;
    return { height: b.getBoundingClientRect().height, line: Number.parseFloat(getComputedStyle(b).lineHeight) };
  });
  expect(badge.height).toBeLessThan(badge.line * 2);
});
