/**
 * Governed approvals in the demo, at 1280 and 375 px, with axe in each new state: a wire over
 * €10,000 needs a second person (two tabs, two personas; the requester's own yes does not count;
 * the partner approves in the other tab and the wire runs once), the audit panel shows the trail,
 * verifies it, notices an edited entry and exports JSON Lines, and revoking an `always` grant in
 * the grants panel makes the next message ask again and is recorded in the person's grants trail.
 */
import { readFileSync } from "node:fs";
import type { Page } from "playwright";
import { describe, expect, test } from "vitest";
import { ask, axeProblems, counts, lastAnswer, newContext, openDemo, settle, shot, useDemo } from "./harness.js";

useDemo();

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
];
const BIG_WIRE = "Wire 12000 EUR to Lena FR1420041010050500013M02606";
const narrow = (page: Page) => page.evaluate(() => matchMedia("(max-width: 900px)").matches);

/** The open question's id, from its card. */
const openQuestion = (page: Page) =>
  page.getAttribute("#transcript .approval-card [data-decision='deny']", "data-interrupt-id");

/** Opens the side panel where it is a drawer (375 px). */
async function showPanel(page: Page): Promise<void> {
  if (await narrow(page)) await page.click("#toggle-panel");
}

describe.each(VIEWPORTS)("at $width px", (viewport) => {
  test("a wire over €10,000 waits for the partner in another tab, who approves it; it runs once", async () => {
    const context = await newContext(viewport);
    const mine = await openDemo(context);
    await mine.emulateMedia({ reducedMotion: "reduce" });
    expect(await mine.inputValue("#persona")).toBe("you");
    expect(await ask(mine, BIG_WIRE)).toBe("asked");
    const card = mine.locator("#transcript .approval-card");
    await expect.poll(() => card.locator(".tool-status").textContent()).toBe("Needs a second person");
    expect(await card.locator(".four-eyes").textContent()).toContain("you cannot approve it");
    // The requester can withdraw, not approve.
    expect(await card.locator("[data-decision]").allTextContents()).toEqual(["Withdraw"]);
    expect(await axeProblems(mine), "requester's card").toEqual([]);
    await shot(mine, `four-eyes-requester-${viewport.width}`);

    // A typed "yes" from the requester is not counted, and the page says why: the wire does not run and waits.
    const first = await openQuestion(mine);
    await mine.fill("#prompt", "yes");
    await mine.press("#prompt", "Enter");
    await expect.poll(() => mine.textContent("#toast")).toContain("Your yes cannot approve this wire");
    expect(await openQuestion(mine)).toBe(first);
    expect(await mine.getAttribute("body", "data-status")).toBe("awaiting-approval");
    expect((await counts(mine))["wire_abroad"] ?? 0).toBe(0);
    expect(await card.locator("[data-decision]").allTextContents()).toEqual(["Withdraw"]);

    // The partner, in a second tab of the same browser.
    const theirs = await openDemo(context);
    await theirs.emulateMedia({ reducedMotion: "reduce" });
    await theirs.bringToFront();
    await theirs.selectOption("#persona", "partner");
    expect(await theirs.getAttribute("body", "data-persona")).toBe("partner");
    if (await narrow(theirs)) await theirs.click("#toggle-threads");
    await theirs.click("#thread-list .thread:has-text('Wire 12000')");
    await theirs.waitForSelector("body[data-status='awaiting-approval']");
    const theirCard = theirs.locator("#transcript .approval-card");
    expect(await theirCard.locator(".tool-status").textContent()).toBe("Needs your approval");
    expect(await theirCard.locator(".four-eyes").textContent()).toContain("Your partner asked for this wire");
    expect(await axeProblems(theirs), "partner's card").toEqual([]);
    await shot(theirs, `four-eyes-partner-${viewport.width}`);
    await theirCard.locator("[data-decision='once']").click();
    await settle(theirs);
    await expect.poll(() => lastAnswer(theirs)).toMatch(/12,000/);
    expect((await counts(theirs))["wire_abroad"]).toBe(1);

    // The requester's tab hears it went through; nothing runs twice.
    await mine.bringToFront();
    await settle(mine);
    expect(await mine.locator("#transcript .approval-card").count()).toBe(0);
    expect((await counts(mine))["wire_abroad"]).toBe(1);
    expect(await axeProblems(mine), "requester after the approval").toEqual([]);
  });

  test("the audit panel shows the conversation's trail, verifies it, notices an edit, and exports JSON Lines", async () => {
    const context = await newContext(viewport);
    const page = await openDemo(context);
    await page.emulateMedia({ reducedMotion: "reduce" });
    expect(await ask(page, "Send 42 to Bob")).toBe("asked");
    await page.click("#transcript .approval-card [data-decision='once']");
    await settle(page);
    await showPanel(page);
    const items = page.locator("#audit .audit-list li");
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(3);
    const kinds = await items.evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset["kind"]));
    expect(kinds).toEqual(expect.arrayContaining(["request", "decision", "execution"]));
    expect(await page.getAttribute("#audit .audit-status", "data-ok")).toBe("true");
    expect(await page.textContent("#audit .audit-status")).toMatch(/entries, none changed since written/);
    expect(await page.textContent("#audit .audit-list")).toContain("You approved the transfer");
    expect(await axeProblems(page), "audit panel").toEqual([]);
    await shot(page, `audit-panel-${viewport.width}`);

    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#audit .audit-export")]);
    expect(download.suggestedFilename()).toMatch(/^audit-.+\.jsonl$/);
    const lines = readFileSync((await download.path()) ?? "", "utf8")
      .trim()
      .split("\n");
    expect(lines).toHaveLength(await items.count());
    expect(lines.map((l) => JSON.parse(l).kind)).toEqual(kinds);

    // Someone edits an entry in storage (devtools): the panel says the trail was changed.
    await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open("kaboo-workflows-audit");
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const store = db.transaction("entries", "readwrite").objectStore("entries");
      await new Promise<void>((resolve, reject) => {
        const req = store.openCursor();
        req.onsuccess = () => {
          const cursor = req.result;
          if (!cursor) return resolve();
          if (cursor.value.kind === "decision") {
            cursor.update({ ...cursor.value, principal: "mallory" });
            return resolve();
          }
          cursor.continue();
        };
        req.onerror = () => reject(req.error);
      });
      db.close();
    });
    await page.reload();
    await page.waitForSelector("body[data-status='idle']");
    await page.emulateMedia({ reducedMotion: "reduce" });
    await showPanel(page);
    await expect.poll(() => page.getAttribute("#audit .audit-status", "data-ok")).toBe("false");
    expect(await page.textContent("#audit .audit-status")).toMatch(
      /The record was changed after it was written: entry [1-9]\d* of this conversation/,
    );
    expect(await axeProblems(page), "audit panel, trail changed").toEqual([]);
  });

  test("revoking an always grant in the grants panel makes the next message ask again", async () => {
    const page = await openDemo(await newContext(viewport));
    await page.emulateMedia({ reducedMotion: "reduce" });
    expect(await ask(page, "Send 42 to Bob")).toBe("asked");
    await page.click("#transcript .approval-card [data-decision='always']");
    await settle(page);
    expect(await ask(page, "Send 5 to Bob")).toBe("answered");
    expect((await counts(page))["transfer"]).toBe(2);

    await showPanel(page);
    await expect.poll(() => page.locator("#grants .grant").count()).toBe(1);
    await page.click("#grants .grant button");
    await expect.poll(() => page.locator("#grants .grant").count()).toBe(0);
    expect(await page.isVisible("#grants .grant-empty")).toBe(true);
    // The revocation is in the person's grants trail of the same audit log, chained like the others.
    const revoked = () =>
      page.evaluate(async () => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const req = indexedDB.open("kaboo-workflows-audit");
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => reject(req.error);
        });
        const range = IDBKeyRange.bound(["kaboo:grants:you", 0], ["kaboo:grants:you", Number.MAX_SAFE_INTEGER]);
        const rows = await new Promise<{ kind: string; principal: string | null; grantIds: string[] }[]>(
          (resolve, reject) => {
            const req = db.transaction("entries", "readonly").objectStore("entries").getAll(range);
            req.onsuccess = () => resolve(req.result);
            req.onerror = () => reject(req.error);
          },
        );
        db.close();
        return rows.map((r) => [r.kind, r.principal, r.grantIds.length]);
      });
    await expect.poll(revoked).toEqual([["revocation", "you", 1]]);
    expect(await axeProblems(page), "grants panel after the revoke").toEqual([]);
    if (await narrow(page)) await page.click("#panel [data-close-drawer]");

    expect(await ask(page, "Send 6 to Bob")).toBe("asked");
    expect((await counts(page))["transfer"]).toBe(2);
    await page.click("#transcript .approval-card [data-decision='deny']");
    await settle(page);
    expect((await counts(page))["transfer"]).toBe(2);
  });
});
