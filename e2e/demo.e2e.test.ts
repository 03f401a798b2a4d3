/**
 * The demo, end to end: Vite serves demo/, Debian's Chromium runs it through Playwright, and each
 * test drives the page as a person would. Every test gets a fresh browser context, so IndexedDB,
 * localStorage and sessionStorage start empty (see ./harness.ts).
 *
 * Screenshots of the main states go to test-results/e2e/; with UPDATE_SCREENSHOTS=1 the ones the
 * README shows are also written to docs/screenshots/.
 */
import { expect, test } from "vitest";
import { counts, fresh, lastAnswer, newContext, openDemo, say, settle, shot, useDemo } from "./harness.js";

useDemo();

test("ask → the dialog shows the call → approve once → the tool runs and the answer streams", async () => {
  const page = await fresh();
  await shot(page, "welcome", true);
  expect(await say(page, "Send 42 to Bob")).toBe("asked");
  const dialog = page.locator("dialog#approval");
  await expect.poll(() => dialog.isVisible()).toBe(true);
  expect(await page.textContent("#approval-title")).toBe("Send €42.00 to Bob?");
  // No developer words in the dialog: the tool's name is not shown.
  expect(await page.textContent("dialog#approval")).not.toContain("transfer(");
  expect(await page.textContent("#approval-subject")).toBe("transfers to Bob");
  expect(await page.locator("#approval-args").textContent()).toMatch(/To\s*Bob\s*Amount\s*€42\.00/);
  // All three scopes are offered for transfers (remember: "always"); focus starts on Deny.
  for (const id of ["#approve-once", "#approve-thread", "#approve-always"]) expect(await page.isVisible(id)).toBe(true);
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("deny");
  // Paused before the tool: it has not run.
  expect(await page.getAttribute("#transcript .tool-row", "data-status")).toBe("awaiting");
  expect((await counts(page))["transfer"]).toBeUndefined();
  await shot(page, "approval-dialog", true);

  await page.click("#approve-once");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €42.00 to Bob");
  expect(await page.getAttribute("#transcript .tool-row", "data-status")).toBe("done");
  expect(await page.textContent("#transcript .tool-row .tool-result")).toContain("Sent €42.00 to Bob");
  expect((await counts(page))["transfer"]).toBe(1);
  // "Once" is not remembered.
  expect(await page.locator("#grants .grant").count()).toBe(0);
  expect(await page.locator("#events li[data-type='tool_end']").count()).toBe(1);
  await shot(page, "approved", true);
});

test("'always' for one recipient skips the dialog for that recipient only; revoking asks again", async () => {
  const page = await fresh();
  await say(page, "Send 5 to Bob");
  await page.click("#approve-always");
  await settle(page);
  await expect.poll(() => page.locator("#grants .grant").count()).toBe(1);
  expect(await page.textContent("#grants .grant strong")).toBe("transfers to Bob");
  expect(await page.textContent("#grants .grant small")).toContain("Always");

  expect(await say(page, "Send 7 to Bob")).toBe("answered");
  await expect.poll(() => lastAnswer(page)).toContain("Sent €7.00 to Bob");
  expect((await counts(page))["transfer"]).toBe(2);

  expect(await say(page, "Send 3 to Carol")).toBe("asked");
  expect(await page.textContent("#approval-subject")).toBe("transfers to Carol");
  await page.click("#deny");
  await settle(page);
  await shot(page, "grants");

  await page.click("#grants .grant button");
  await expect.poll(() => page.locator("#grants .grant").count()).toBe(0);
  expect(await say(page, "Send 2 to Bob")).toBe("asked");
  expect((await counts(page))["transfer"]).toBe(2);
});

test("deny: the tool does not run and the model's answer says it was denied", async () => {
  const page = await fresh();
  await say(page, "pay eve 7");
  // Esc closes the dialog without answering: the run stays paused, the card keeps the question, the
  // focus goes back to the card's "Details and edit", which brings the dialog back.
  await page.keyboard.press("Escape");
  await expect.poll(() => page.isVisible("dialog#approval")).toBe(false);
  expect(await page.getAttribute("body", "data-status")).toBe("awaiting-approval");
  await expect
    .poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset["action"]))
    .toBe("review");
  await shot(page, "approval-card", true);
  await page.click("#transcript .approval-card [data-action='review']");
  await expect.poll(() => page.isVisible("dialog#approval")).toBe(true);
  await page.click("#deny");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("you declined the transfer");
  expect(await page.getAttribute("#transcript .tool-row", "data-status")).toBe("declined");
  expect((await counts(page))["transfer"]).toBeUndefined();
});

test("an invalid edit is refused in the dialog; a valid edit runs with the edited arguments", async () => {
  const page = await fresh();
  await say(page, "Send 42 to Bob");
  await page.click("#edit-toggle");
  expect(await page.getAttribute("#edit-toggle", "aria-expanded")).toBe("true");
  // A form made from the tool's schema, with problems in words beside their fields.
  expect(await page.locator("#approval-edit-form label").allTextContents()).toEqual([
    "Recipient",
    "Amount",
    "Currency",
  ]);
  await page.fill("#edit-amount", "-5");
  await expect.poll(() => page.textContent("#edit-amount-error")).toBe("Enter an amount above 0.");
  expect(await page.getAttribute("#edit-amount", "aria-invalid")).toBe("true");
  expect(await page.isDisabled("#approve-once")).toBe(true);
  await page.fill("#edit-amount", "6000");
  await expect.poll(() => page.textContent("#edit-amount-error")).toBe("The most one transfer can send is €5,000.00.");
  await page.fill("#edit-amount", "twelve");
  await expect.poll(() => page.textContent("#edit-amount-error")).toBe("Enter an amount in numbers, such as 42.50.");
  await page.fill("#edit-to", "");
  await expect.poll(() => page.textContent("#edit-to-error")).toBe("Enter the recipient.");
  expect(await page.textContent("#approval")).not.toMatch(/expected|Too small|Invalid input|JSON/);
  await shot(page, "edit-refused");
  expect(await page.isDisabled("#approve-once")).toBe(true);

  await page.fill("#edit-to", "bob");
  await page.fill("#edit-amount", "12");
  await expect.poll(() => page.textContent("#edit-amount-error")).toBe("");
  await page.click("#approve-once");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €12.00 to Bob");
  expect(await page.textContent("#transcript .tool-row .tool-args")).toContain("Amount: €12.00");
  expect((await counts(page))["transfer"]).toBe(1);
});

test("reload while an approval is pending: the dialog returns, and approving runs the tool exactly once", async () => {
  const page = await fresh();
  await say(page, "Send 9 to Carol");
  expect(await page.isVisible("dialog#approval")).toBe(true);
  await page.reload();
  await page.waitForSelector("body[data-status='awaiting-approval']");
  // The question is back on its card; its dialog opens from there.
  expect(await page.textContent("#transcript .approval-card .card-headline")).toBe("Send €9.00 to Carol?");
  await page.click("#transcript .approval-card [data-action='review']");
  await expect.poll(() => page.isVisible("dialog#approval")).toBe(true);
  expect(await page.textContent("#approval-subject")).toBe("transfers to Carol");
  expect(await page.locator("#transcript .msg.user").first().textContent()).toBe("Send 9 to Carol");
  await shot(page, "reload-restored");
  await page.click("#approve-once");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €9.00 to Carol");
  expect((await counts(page))["transfer"]).toBe(1);
  // And after another reload, the conversation is there and nothing ran again.
  await page.reload();
  await page.waitForSelector("body[data-status='idle']");
  expect(await lastAnswer(page)).toContain("Sent €9.00 to Carol");
  expect((await counts(page))["transfer"]).toBe(1);
});

test("reload after the approved tool ran but before the run ended: nothing moves twice", async () => {
  const page = await fresh("?delay=40");
  await say(page, "Send 5 to Bob");
  await page.click("#approve-once");
  await page.waitForFunction(
    () =>
      ((globalThis as unknown as { __demo: { counts: Record<string, number> } }).__demo.counts["transfer"] ?? 0) >= 1,
  );
  await page.reload();
  await page.waitForSelector("body[data-status='idle'], body[data-status='awaiting-approval']");
  // KabooAgent saves a finished call as its result arrives: the reloaded page shows the result and no
  // longer offers the approval. Only if the page died between the transfer and its result does the
  // question come back; then the bank's idempotency key (the tool call id) keeps a second approval
  // from sending the money again.
  if ((await page.getAttribute("body", "data-status")) === "awaiting-approval") {
    await page.click("#approve-once");
    await settle(page);
    await expect.poll(() => lastAnswer(page)).toContain("not repeated");
  }
  expect((await counts(page))["transfer"]).toBe(1);
  expect(await page.evaluate(() => JSON.parse(localStorage.getItem("kaboo-demo:ledger") ?? "{}").checking)).toBe(
    2335.12,
  );
});

test("Stop ends a streaming answer", async () => {
  const page = await fresh("");
  await page.fill("#prompt", "Explain how approvals work");
  await page.press("#prompt", "Enter");
  await page.waitForSelector("body[data-status='running']");
  await expect.poll(() => lastAnswer(page).then((t) => t.length), { timeout: 10_000 }).toBeGreaterThan(200);
  await shot(page, "streaming", true);
  await page.click("#stop");
  await settle(page);
  const stopped = await lastAnswer(page);
  await page.waitForTimeout(500);
  expect(await lastAnswer(page)).toBe(stopped);
  expect(stopped.length).toBeLessThan(1500);
  expect(await page.isVisible("#send")).toBe(true);
  // The conversation goes on after a stop.
  expect(await say(page, "What's my balance?")).toBe("answered");
  await expect.poll(() => lastAnswer(page)).toContain("Checking:");
});

test("two tabs: a grant given in one applies in the other", async () => {
  const context = await newContext();
  const first = await openDemo(context);
  const second = await openDemo(context);
  // A background tab's timers are throttled: bring the tab being used to the front, as a person would.
  await first.bringToFront();
  await say(first, "Send 5 to Dave");
  await first.click("#approve-always");
  await settle(first);
  // The other tab hears about it (BroadcastChannel) without a reload.
  await expect.poll(() => second.locator("#grants .grant").count()).toBe(1);
  await second.bringToFront();
  expect(await say(second, "Send 6 to Dave")).toBe("answered");
  await expect.poll(() => lastAnswer(second)).toContain("Sent €6.00 to Dave");
  expect((await counts(second))["transfer"]).toBe(2);
  // Revoked in the second tab, gone in the first.
  await second.click("#grants .grant button");
  await expect.poll(() => first.locator("#grants .grant").count()).toBe(0);
});

test("a request whose deadline passes is treated as expired", async () => {
  const page = await fresh("?ttl=2&delay=2");
  expect(await say(page, "Wire 900 EUR to Lena DE44500105175407324931")).toBe("asked");
  expect(await page.isVisible("#approval-countdown")).toBe(true);
  expect(await page.textContent("#approval-countdown-text")).toMatch(/Expires in 0:0[12]/);
  // Only "once" for wires.
  expect(await page.isVisible("#approve-thread")).toBe(false);
  expect(await page.isVisible("#approve-always")).toBe(false);
  await page.waitForSelector("dialog#approval[data-state='expired']", { timeout: 5000 });
  expect(await page.isVisible("#approve-once")).toBe(false);
  await shot(page, "expired");
  await page.click("#approval-dismiss");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("expired before it was answered");
  expect((await counts(page))["wire_abroad"]).toBeUndefined();
});

test("lookups never ask, the browser tool restyles the page, and the card service asks by itself", async () => {
  const page = await fresh();
  expect(await say(page, "What's my balance?")).toBe("answered");
  await expect.poll(() => lastAnswer(page)).toContain("Checking: €2,340.12");
  expect(await say(page, "Switch to dark mode")).toBe("answered");
  await expect.poll(() => page.getAttribute("html", "data-theme")).toBe("dark");
  expect(await say(page, "Freeze my card 4821")).toBe("asked");
  expect(await page.textContent("#approval-message")).toContain("Freeze card •••• 4821");
  expect(await page.isVisible("#approve-thread")).toBe(false);
  await shot(page, "card-service-dark", true);
  await page.click("#approve-once");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Card •••• 4821 is frozen");
  expect((await counts(page))["freeze_card"]).toBe(1);
});

test("threads: a new conversation starts empty, and switching back restores the first", async () => {
  const page = await fresh();
  await say(page, "Send 1 to Bob");
  await page.click("#approve-once");
  await settle(page);
  await page.click("#new-thread");
  await settle(page);
  expect(await page.locator("#transcript .msg").count()).toBe(0);
  expect(await page.isVisible("#welcome")).toBe(true);
  await expect.poll(() => page.locator("#thread-list .thread").count()).toBe(2);
  await page.click("#thread-list .thread:has-text('Send 1 to Bob')");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €1.00 to Bob");
});

test("at 375 px wide: the approval dialog fits and the page does not scroll sideways", async () => {
  const page = await openDemo(await newContext({ width: 375, height: 812 }, "dark"));
  await say(page, "Send 42 to Bob");
  const box = await page.locator("dialog#approval").boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await shot(page, "mobile-approval", true);
  await page.click("#approve-once");
  await settle(page);
  await page.click("#toggle-panel");
  await page.waitForTimeout(300);
  await shot(page, "mobile-panel");
});

test("the context meter counts tokens, and old long tool results are cleared past the budget", async () => {
  const page = await fresh();
  for (let i = 0; i < 3; i++) {
    expect(await say(page, "Show my statement")).toBe("answered");
    await expect.poll(() => page.locator("#transcript .tool-row[data-status='done']").count()).toBe(i + 1);
  }
  await expect.poll(async () => Number(await page.getAttribute("#context-cleared", "data-cleared"))).toBeGreaterThan(0);
  expect(await page.textContent("#context-cleared")).toMatch(/cleared · ~[\d,]+ tokens saved/);
  expect(await page.textContent("#context-text")).toMatch(/~[\d,]+ tokens sent/);
  // Clearing changes what the model is sent, never the transcript the person sees.
  expect(await page.locator("#transcript .tool-row .tool-result pre").first().textContent()).toContain(
    "Statement (checking)",
  );
  await shot(page, "context-cleared");
});

test("settings: a real model's key stays in sessionStorage only", async () => {
  const page = await fresh();
  await page.click("#open-settings");
  await page.selectOption("#settings select[name='provider']", "openai");
  await page.fill("#settings input[name='baseUrl']", "http://127.0.0.1:11434/v1");
  await page.click("#settings button[value='save']");
  // A model name is required.
  await expect.poll(() => page.textContent("#settings .form-error")).toContain("Name the model");
  await page.fill("#settings input[name='model']", "llama3.2");
  await page.fill("#settings input[name='apiKey']", "sk-test-123");
  await page.click("#settings button[value='save']");
  await expect.poll(() => page.textContent("#model-label")).toBe("OpenAI-compatible · llama3.2");
  const stored = await page.evaluate(() => ({
    session: JSON.stringify(sessionStorage),
    local: JSON.stringify(localStorage),
  }));
  expect(stored.session).toContain("sk-test-123");
  expect(stored.local).not.toContain("sk-test-123");
  await page.click("#open-settings");
  await page.selectOption("#settings select[name='provider']", "scripted");
  await page.click("#settings button[value='save']");
  await expect.poll(() => page.textContent("#model-label")).toBe("Scripted model · offline");
  expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain("sk-test-123");
});
