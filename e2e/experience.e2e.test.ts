/**
 * The demo as a first-time user meets it: it understands what people type, says the money in
 * words, leaves honest marks (stop, errors, rules), keeps what it showed across reloads and tabs,
 * and renders a streamed reply without redrawing the rest of the conversation.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { expect, test } from "vitest";
import { counts, fresh, lastAnswer, newContext, openDemo, openDetails, say, settle, shot, useDemo } from "./harness.js";

useDemo();

const transcriptText = (page: Awaited<ReturnType<typeof fresh>>) =>
  page.textContent("#transcript").then((t) => t ?? "");

test("off-script phrasing: currency signs, number words, own-account moves, undo in context, cancel by typing", async () => {
  const page = await fresh();
  expect(await say(page, "transfer $5 to Alice please")).toBe("asked");
  expect(await page.textContent("#approval-title")).toBe("Send $5.00 to Alice?");
  // "Decide later", then decline by typing.
  await page.keyboard.press("Escape");
  await page.fill("#prompt", "cancel that");
  await page.press("#prompt", "Enter");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("you declined the transfer");
  expect((await counts(page))["transfer"]).toBeUndefined();

  expect(await say(page, "send twenty to bob")).toBe("asked");
  expect(await page.textContent("#approval-title")).toBe("Send €20.00 to Bob?");
  await page.click("#approve-once");
  await settle(page);
  expect(await say(page, "undo")).toBe("answered");
  await expect.poll(() => lastAnswer(page)).toContain("€20.00 to Bob has already left your account");

  expect(await say(page, "move 100 to savings")).toBe("asked");
  expect(await page.textContent("#approval-title")).toBe("Move €100.00 to savings?");
  await page.click("#approve-once");
  await settle(page);
  // The reply's suggestions are buttons that send.
  await page
    .locator("#transcript .msg.assistant")
    .last()
    .locator(".suggestions button", { hasText: "Undo that" })
    .click();
  await page.waitForSelector("body[data-status='awaiting-approval']");
  expect(await page.textContent("#transcript .approval-card .card-headline")).toBe("Move €100.00 to checking?");
  await openDetails(page);
  expect(await page.textContent("#approval-title")).toBe("Move €100.00 to checking?");
  await page.click("#approve-once");
  await settle(page);
  const ledger = await page.evaluate(() => JSON.parse(localStorage.getItem("kaboo-demo:ledger") ?? "{}"));
  expect([ledger.checking, ledger.savings]).toEqual([2340.12 - 20, 10500]);

  expect(await say(page, "what's the weather like?")).toBe("answered");
  const reply = await lastAnswer(page);
  expect(reply).toContain("I can't help with");
  expect(reply.length).toBeLessThan(200);
  await page
    .locator("#transcript .msg.assistant")
    .last()
    .locator(".suggestions button", { hasText: "What's my balance?" })
    .click();
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Checking:");
});

test("closing the dialog and typing at once: the focus stays in the composer (a late focus return does not take it)", async () => {
  const page = await fresh();
  expect(await say(page, "transfer $5 to Alice please")).toBe("asked");
  // The dialog's close event comes a task after Esc; the person is in the composer by then.
  await page.evaluate(() => {
    document.querySelector<HTMLDialogElement>("dialog#approval")?.close();
    document.querySelector<HTMLInputElement>("#prompt")?.focus();
  });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("prompt");
  await page.keyboard.type("cancel that");
  await page.keyboard.press("Enter");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("you declined the transfer");
});

test("the dialog says the action in words; Covers only beside the choices that remember; edits update it", async () => {
  const page = await fresh();
  await say(page, "Send 42 to Bob");
  expect(await page.textContent("#approval-title")).toBe("Send €42.00 to Bob?");
  expect(await page.locator("#approval-args dd").allTextContents()).toEqual(["Bob", "€42.00", "Checking"]);
  expect(await page.isVisible("#approval-remember")).toBe(true);
  expect(await page.textContent("#approval-remember")).toContain("covers transfers to Bob");
  // Deny and Approve once share a row; the two remembering choices share the next.
  const [deny, once, thread, always] = await Promise.all(
    ["#deny", "#approve-once", "#approve-thread", "#approve-always"].map((s) => page.locator(s).boundingBox()),
  );
  // Same row, give or take sub-pixel layout (text metrics can shift a button by under a pixel).
  expect(Math.abs(deny!.y - once!.y)).toBeLessThan(2);
  expect(Math.abs(thread!.y - always!.y)).toBeLessThan(2);
  expect(thread!.y).toBeGreaterThan(once!.y);
  await page.click("#edit-toggle");
  await page.fill("#edit-to", "carol");
  await page.fill("#edit-amount", "12.5");
  await expect.poll(() => page.textContent("#approval-title")).toBe("Send €12.50 to Carol?");
  expect(await page.locator("#approval-args dd").allTextContents()).toEqual(["Carol", "€12.50", "Checking"]);
  // The approval is also a card in the conversation.
  expect(await page.textContent("#transcript .approval-card .card-headline")).toBe("Send €42.00 to Bob?");
  await page.click("#deny");
  await settle(page);

  // A wire is approved once only: nothing to remember, so no "Covers".
  expect(await say(page, "Wire 900 EUR to Lena DE44500105175407324931")).toBe("asked");
  expect(await page.textContent("#approval-title")).toBe("Wire €900.00 to Lena?");
  expect(await page.isVisible("#approval-remember")).toBe(false);
});

test("a declined call shows no text meant for the model, and the log never calls it started", async () => {
  const page = await fresh();
  await say(page, "pay eve 7");
  await page.click("#deny");
  await settle(page);
  expect(await transcriptText(page)).not.toMatch(/Do not call|denied by the user/i);
  expect(await page.textContent("#transcript .tool-row .tool-status")).toBe("Declined");
  const row = page.locator("#events li[data-call-id]");
  expect(await row.count()).toBe(1);
  expect(await row.locator(".kind").textContent()).toBe("Declined, not run");
  expect(await page.locator("#events").textContent()).not.toContain("Tool started");
});

test("Stop leaves a mark (also before any text), the log says the run stopped, and Esc stops while focus stays in the composer", async () => {
  const page = await fresh("?delay=40");
  await page.fill("#prompt", "Explain how approvals work");
  await page.press("#prompt", "Enter");
  await expect.poll(() => lastAnswer(page).then((t) => t.length), { timeout: 10_000 }).toBeGreaterThan(40);
  // Focus stays where the person typed; the next Tab reaches Stop, not the top of the page.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("prompt");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("stop");
  await page.keyboard.press("Escape");
  await settle(page);
  expect(await page.textContent("#transcript .run-mark.stopped")).toContain("the answer was cut short here");
  await expect
    .poll(() => page.locator("#events li[data-type='agent_complete'] .kind").last().textContent())
    .toBe("Run stopped");
  expect(await page.getAttribute("#events li[data-type='agent_complete']", "data-outcome")).toBe("warn");

  // Stopped before the first word (a slow model here; "Thinking…" shows meanwhile): the question still gets a mark.
  await page.goto(`${page.url().split("?")[0]}?delay=500`);
  await settle(page);
  await page.fill("#prompt", "hello");
  await page.press("#prompt", "Enter");
  await page.waitForSelector("#transcript .thinking");
  await page.click("#stop");
  await settle(page);
  expect(await page.locator("#transcript .run-mark.stopped").last().textContent()).toContain(
    "Stopped before the assistant replied",
  );
  // The marks outlive the toast and a reload; Retry on a mark asks again.
  await page.goto(`${page.url().split("?")[0]}?delay=2`);
  await settle(page);
  expect(await page.locator("#transcript .run-mark.stopped").count()).toBe(2);
  await page.locator("#transcript .run-mark.stopped button").last().click();
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Hi! I can check your balances");
  expect(await page.locator("#transcript .run-mark.stopped").count()).toBe(1);
});

test("Stop while the agent's code is still loading stops that answer before it starts", async () => {
  const context = await newContext();
  // The runner's code arrives late, as on a slow network: Stop lands before the run has begun.
  await context.route(/\/demo\/runner\.ts/, async (route) => {
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  const page = await openDemo(context);
  await page.fill("#prompt", "hello");
  await page.press("#prompt", "Enter");
  await page.click("#stop");
  await settle(page);
  expect(await page.locator("#transcript .run-mark.stopped").last().textContent()).toContain(
    "Stopped before the assistant replied",
  );
  expect(await page.locator("#transcript .msg.assistant").count()).toBe(0);
});

test("an approval answered in another tab closes there; rule-approved transfers say so; grants name their conversation", async () => {
  const context = await newContext();
  const first = await openDemo(context);
  await first.bringToFront();
  expect(await say(first, "Send 5 to Dave")).toBe("asked");
  const second = await openDemo(context);
  await second.bringToFront();
  await second.click("#thread-list .thread:has-text('Send 5 to Dave')");
  await second.waitForSelector("body[data-status='awaiting-approval']");
  // Decided on the card, for this conversation.
  await second.click("#transcript .approval-card [data-decision='thread']");
  await settle(second);
  await first.bringToFront();
  // The first tab hears that the conversation moved on: its dialog closes and it shows the result.
  await settle(first);
  expect(await first.isVisible("dialog#approval")).toBe(false);
  await expect.poll(() => lastAnswer(first)).toContain("Sent €5.00 to Dave");
  expect((await counts(first))["transfer"]).toBe(1);
  expect(await first.textContent("#grants .grant small")).toContain("This conversation (Send 5 to Dave)");

  expect(await say(first, "send six to dave")).toBe("answered");
  await expect.poll(() => first.locator("#transcript .tool-row .rule-mark").count()).toBe(1);
  expect(await first.textContent("#transcript .rule-mark")).toBe("✓ Approved by your rule: transfers to Dave");
});

test("the activity log and opened details survive a reload; a streamed frame changes only the streaming reply", async () => {
  const page = await fresh();
  expect(await say(page, "Show my statement")).toBe("answered");
  await page.click("#transcript .tool-result summary");
  const logBefore = await page.locator("#events li").allTextContents();
  expect(logBefore.length).toBeGreaterThan(2);
  // A call is said in words, as the dialog says it, never as JSON.
  expect(logBefore.join("\n")).not.toMatch(/[{}"]/);
  await page.reload();
  await settle(page);
  expect(await page.locator("#events li").allTextContents()).toEqual(logBefore);
  expect(await page.getAttribute("#transcript details.tool-result", "open")).toBe("");

  // Count what changes while a reply streams: nothing outside the streaming bubble.
  await page.goto(`${page.url().split("?")[0]}?delay=25`);
  await settle(page);
  const replies = await page.locator("#transcript .msg.assistant").count();
  await page.fill("#prompt", "Explain how approvals work");
  await page.press("#prompt", "Enter");
  await expect.poll(() => page.locator("#transcript .msg.assistant").count(), { timeout: 10_000 }).toBe(replies + 1);
  await expect.poll(() => lastAnswer(page).then((t) => t.length), { timeout: 10_000 }).toBeGreaterThan(20);
  const outside = await page.evaluate(async () => {
    const root = document.querySelector("#transcript")!;
    const bubble = [...root.querySelectorAll(".msg.assistant")].at(-1)!;
    let added = 0;
    let elsewhere = 0;
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        if (!bubble.contains(r.target)) elsewhere++;
        added += r.addedNodes.length;
      }
    });
    observer.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
    await new Promise((r) => setTimeout(r, 800));
    observer.disconnect();
    return { added, elsewhere, length: bubble.textContent?.length ?? 0 };
  });
  expect(outside.elsewhere).toBe(0);
  expect(outside.added).toBeGreaterThan(0);
  // Streamed text is appended, not redrawn: far fewer nodes than characters shown.
  expect(outside.added).toBeLessThan(outside.length);
  await page.click("#stop");
  await settle(page);
});

test("dark theme follows the system, the toggle overrides it and is remembered; a model error offers Retry", async () => {
  const page = await openDemo(await newContext(undefined, "dark"), "?delay=2&fail=1");
  expect(await page.getAttribute("html", "data-theme")).toBe("dark");
  await page.click("#theme-toggle");
  expect(await page.getAttribute("html", "data-theme")).toBe("light");
  await page.reload();
  await settle(page);
  expect(await page.getAttribute("html", "data-theme")).toBe("light");

  expect(await say(page, "What's my balance?")).toBe("answered");
  await page.waitForSelector("#transcript .run-error");
  expect(await page.textContent("#transcript .run-error")).toContain("simulated outage");
  await page.click("#transcript .run-error button");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Checking:");
  expect(await page.locator("#transcript .run-error").count()).toBe(0);
  expect(await page.locator("#transcript .msg.user").count()).toBe(1);
});

test("markdown is rendered, raw HTML stays text; copy, regenerate, scroll to the latest", async () => {
  const context = await newContext({ width: 1280, height: 600 });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await openDemo(context);
  expect(await say(page, "Explain how approvals work")).toBe("answered");
  expect(await page.locator("#transcript .msg.assistant ol > li").count()).toBe(6);
  expect(await page.locator("#transcript .msg.assistant pre code").count()).toBe(1);
  expect(await page.locator("#transcript .msg.assistant strong").count()).toBeGreaterThan(5);
  await shot(page, "markdown", true);

  await page.locator("#transcript .msg.assistant .msg-actions button").last().click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
    "**The model proposes, the page decides.**",
  );

  // Scrolled up, a button brings the latest back.
  await page.evaluate(() => document.querySelector("#transcript")!.scrollTo({ top: 0, behavior: "instant" }));
  await page.waitForSelector("#to-bottom:not([hidden])");
  await page.click("#to-bottom");
  await page.waitForSelector("#to-bottom", { state: "hidden" });

  expect(await say(page, "<img src=x onerror=alert(1)> <b>bold?</b>")).toBe("answered");
  expect(await lastAnswer(page)).toContain("<img src=x onerror=alert(1)>");
  expect(await page.locator("#transcript img, #transcript .msg.assistant b").count()).toBe(0);

  // Regenerate replaces the last reply with a fresh one (same number of messages, a new id).
  const before = await page.locator("#transcript .msg").count();
  const id = await page.locator("#transcript .msg.assistant").last().getAttribute("data-id");
  await page.click("#transcript .turn-actions button");
  await settle(page);
  expect(await page.locator("#transcript .msg").count()).toBe(before);
  expect(await page.locator("#transcript .msg.assistant").last().getAttribute("data-id")).not.toBe(id);
  expect(await lastAnswer(page)).toContain("I can't help with");
});

test("an answer whose turn moved money offers no Regenerate (it would drop the transfer from the record)", async () => {
  const page = await fresh();
  await say(page, "Send 1 to Bob");
  await page.click("#approve-once");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Bob");
  expect(await page.locator("#transcript .turn-actions button").count()).toBe(0);
  // A later question answered without tools offers it again, and regenerating it keeps the transfer.
  expect(await say(page, "Explain how approvals work")).toBe("answered");
  await page.click("#transcript .turn-actions button");
  await settle(page);
  expect(await page.locator("#transcript .run-error").count()).toBe(0);
  expect(await page.textContent("#transcript")).toContain("Bob");
});

test("threads: rename and delete", async () => {
  const page = await fresh();
  await say(page, "Send 1 to Bob");
  await page.click("#approve-once");
  await settle(page);
  await page.click("#thread-list .rename");
  await page.fill("#thread-list .rename-input", "Rent for Bob");
  await page.press("#thread-list .rename-input", "Enter");
  await expect.poll(() => page.textContent("#thread-list .thread")).toBe("Rent for Bob");
  await page.reload();
  await settle(page);
  await expect.poll(() => page.textContent("#thread-list .thread")).toBe("Rent for Bob");
  await page.click("#thread-list .delete");
  await page.click("#thread-list .delete[data-armed='true']");
  await expect.poll(() => page.locator("#transcript .msg").count()).toBe(0);
  await expect.poll(() => page.textContent("#thread-list")).not.toContain("Rent for Bob");
  // The welcome shows once the emptied thread is drawn again, a moment after the list: awaited, not read once
  // (a clean-clone run under load read it before it showed).
  await expect.poll(() => page.isVisible("#welcome")).toBe(true);
});

test("at 375 px: drawers close with their own button, the shield opens approvals, the model badge shows its whole name", async () => {
  const page = await openDemo(await newContext({ width: 375, height: 812 }));
  const badge = await page.evaluate(() => {
    const b = document.querySelector<HTMLElement>("#open-settings")!;
    return { scroll: b.scrollWidth, client: b.clientWidth, right: b.getBoundingClientRect().right };
  });
  expect(badge.scroll).toBeLessThanOrEqual(badge.client);
  expect(badge.right).toBeLessThanOrEqual(375);
  await page.click("#toggle-panel");
  await expect.poll(() => page.evaluate(() => document.activeElement?.closest("aside")?.id)).toBe("panel");
  await page.click("#panel .drawer-close");
  await expect.poll(() => page.evaluate(() => document.body.classList.contains("show-panel"))).toBe(false);
  await page.click("#toggle-threads");
  await page.click("#threads .drawer-close");
  await expect.poll(() => page.evaluate(() => document.body.classList.contains("show-threads"))).toBe(false);
  await page.click("#open-settings");
  expect(await page.isVisible("dialog#settings")).toBe(true);
});

test("time to first token with the default scripted model (measured, not asserted)", async () => {
  const page = await fresh("");
  const times: number[] = [];
  for (const text of ["hello", "what's the weather?", "hello again"]) {
    await page.fill("#prompt", text);
    const ms = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const start = performance.now();
          const root = document.querySelector("#transcript")!;
          const seen = root.querySelectorAll(".msg.assistant").length;
          const observer = new MutationObserver(() => {
            const bubbles = root.querySelectorAll(".msg.assistant .content");
            if (bubbles.length > seen && (bubbles[bubbles.length - 1]!.textContent ?? "").length > 0) {
              observer.disconnect();
              resolve(performance.now() - start);
            }
          });
          observer.observe(root, { childList: true, subtree: true, characterData: true });
          document.querySelector<HTMLFormElement>("#composer")!.requestSubmit();
        }),
    );
    times.push(Math.round(ms));
    await settle(page);
  }
  mkdirSync("test-results/e2e", { recursive: true });
  writeFileSync("test-results/e2e/time-to-first-token.json", JSON.stringify({ delayMs: 12, ms: times }));
  console.log(`time to first token (scripted model, 12 ms chunks): ${times.join(", ")} ms`);
  expect(times).toHaveLength(3);
});
