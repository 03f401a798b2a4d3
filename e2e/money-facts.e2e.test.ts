/**
 * The scripted bank never invents, drops or changes a money fact: several payments in one sentence
 * are several approvals, a missing IBAN or amount is asked for (never filled in), a limit is said in
 * words before anything is asked, and typos and ordinary follow-ups get answers.
 */
import { expect, test } from "vitest";
import { counts, fresh, lastAnswer, say, settle, useDemo } from "./harness.js";

useDemo();

const cards = (page: Awaited<ReturnType<typeof fresh>>) =>
  page.locator("#transcript .approval-card .card-headline").allTextContents();

test("'send 5 to bob and 10 to alice' asks two approvals, and approving both sends both", async () => {
  const page = await fresh();
  expect(await say(page, "send 5 to bob and 10 to alice")).toBe("asked");
  await expect.poll(() => cards(page)).toEqual(["Send €5.00 to Bob?", "Send €10.00 to Alice?"]);
  expect(await page.textContent("#approval-title")).toBe("Send €5.00 to Bob?");
  await page.click("#approve-once");
  await expect.poll(() => page.textContent("#approval-title")).toBe("Send €10.00 to Alice?");
  await page.click("#approve-once");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €10.00 to Alice");
  expect(await lastAnswer(page)).toContain("Sent €5.00 to Bob");
  expect((await counts(page))["transfer"]).toBe(2);
});

test("a wire with no IBAN typed asks for it, and the IBAN typed is the one approved", async () => {
  const page = await fresh();
  expect(await say(page, "Wire 900 EUR to Lena")).toBe("answered");
  expect(await lastAnswer(page)).toContain("What is Lena's IBAN?");
  expect(await page.locator("#transcript .tool-row").count()).toBe(0);
  expect(await page.textContent("#transcript")).not.toContain("DE89");
  expect(await say(page, "FR14 2004 1010 0505 0001 3M02 606")).toBe("asked");
  expect(await page.textContent("#approval-title")).toBe("Wire €900.00 to Lena?");
  expect(await page.locator("#approval-args dd").allTextContents()).toContain("FR1420041010050500013M02606");
  await page.click("#deny");
  await settle(page);
  expect((await counts(page))["wire_abroad"]).toBeUndefined();
});

test("'pay bob' asks how much; '20' then asks to approve €20.00 to Bob", async () => {
  const page = await fresh();
  expect(await say(page, "pay bob")).toBe("answered");
  expect(await lastAnswer(page)).toContain("How much should I send to Bob?");
  expect(await say(page, "20")).toBe("asked");
  expect(await page.textContent("#approval-title")).toBe("Send €20.00 to Bob?");
  await page.click("#deny");
  await settle(page);
});

test("'send 6000 to bob' explains the €5,000 limit before anything is asked", async () => {
  const page = await fresh();
  expect(await say(page, "send 6000 to bob")).toBe("answered");
  const reply = await lastAnswer(page);
  expect(reply).toContain("€6,000.00 is more than the €5,000.00 limit for one transfer");
  expect(reply).not.toContain("Invalid input");
  expect(await page.locator("#transcript .tool-row").count()).toBe(0);
});

test("typos and follow-ups: 'whats my balence', 'what did I just do?', 'ok thanks'", async () => {
  const page = await fresh();
  expect(await say(page, "whats my balence")).toBe("answered");
  await expect.poll(() => lastAnswer(page)).toContain("Checking:");
  expect(await say(page, "pay eve 7")).toBe("asked");
  await page.click("#deny");
  await settle(page);
  expect(await say(page, "what did I just do?")).toBe("answered");
  await expect.poll(() => lastAnswer(page)).toContain("You declined: send €7.00 to Eve. It did not happen.");
  expect(await lastAnswer(page)).toContain("You checked your balances.");
  expect(await say(page, "ok thanks")).toBe("answered");
  await expect.poll(() => lastAnswer(page)).toContain("You're welcome!");
  expect(await page.textContent("#transcript")).not.toContain("I can't help with");
});
