/**
 * A reload while the bank books an approved transfer (`?bankms=4000`): the page asks exactly one
 * question, in plain words about the payment, never the approval again first; the composer answers
 * it in words and shows the balances; the answer shows as the person's decision, never as text
 * meant for the model or a red "Failed".
 */
import { expect, test } from "vitest";
import type { Page } from "playwright";
import { counts, fresh, lastAnswer, openDetails, say, settle, shot, useDemo } from "./harness.js";

useDemo();

// Retries: on a machine loaded by a parallel suite the old page can still outlive `page.reload()` and end the
// call itself (the new page then rightly watches it end, booked once, and asks nothing), so the case these tests
// are about was not reached; seen in 1 of 2 clean-clone runs under load, never in 3 runs alone, and at 3471b8e
// in both attempts of one test under load (it passed 3 of 3 runs alone right after). A real failure fails every
// attempt.
const RETRY = { retry: 3 };

/**
 * Sends €5 to Bob, approves it and reloads once the bank's call is claimed in the ledger. The old page's
 * answer from the bank is lost first, as a reload loses it: on a loaded machine the old page can otherwise
 * outlive `page.reload()` long enough to get it (then the new page watches the call end and asks nothing).
 */
async function reloadMidCall(page: Page): Promise<void> {
  expect(await say(page, "Send 5 to Bob")).toBe("asked");
  await page.click("#approve-once");
  await page.waitForSelector("#transcript .tool-row[data-status='running']");
  await page.waitForFunction(
    async () => {
      if (!(await indexedDB.databases()).some((d) => d.name === "kaboo-workflows-ledger")) return false;
      return new Promise<boolean>((resolve) => {
        const open = indexedDB.open("kaboo-workflows-ledger");
        open.onerror = () => resolve(false);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains("calls")) return (db.close(), resolve(false));
          const count = db.transaction("calls").objectStore("calls").count();
          count.onsuccess = () => (db.close(), resolve(count.result > 0));
          count.onerror = () => (db.close(), resolve(false));
        };
      });
    },
    undefined,
    { polling: 50, timeout: 10_000 },
  );
  await page.evaluate(() =>
    (globalThis as unknown as { __demo: { loseBankAnswers(): Promise<void> } }).__demo.loseBankAnswers(),
  );
  // Every state the dialog takes after the reload, from the first script on.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (globalThis as unknown as { __asked: string[] }).__asked = seen;
    const look = () => {
      for (const h of document.querySelectorAll("#transcript .approval-card .card-headline"))
        seen.push(`card:${h.textContent}`);
      const d = document.querySelector("dialog#approval");
      if (d?.hasAttribute("open"))
        seen.push(`${d.getAttribute("data-state")}:${d.querySelector("#approval-title")?.textContent}`);
    };
    setInterval(look, 10);
  });
  await page.reload();
  try {
    await page.waitForSelector("body[data-status='awaiting-approval']", { timeout: 30_000 });
  } catch (error) {
    // What the page shows instead, for the log of a failed run.
    const seen = await page.evaluate(
      () => `${document.body.dataset["status"]}: ${document.querySelector("#events")?.textContent}`,
    );
    throw new Error(`no question after the reload; the page shows ${seen}`, { cause: error });
  }
}

const asked = (page: Page) =>
  page.evaluate(() => [...new Set((globalThis as unknown as { __asked: string[] }).__asked)]);

test(
  "one question after the reload, about the payment in words; 'it went through' typed is the person's decision",
  RETRY,
  async () => {
    const page = await fresh("?delay=2&bankms=4000");
    await reloadMidCall(page);
    const question = "Did the transfer of €5.00 to Bob go through?";
    expect(await asked(page)).toEqual([`card:${question}`]);
    expect(await page.textContent("#transcript .approval-card .tool-status")).toBe("Outcome unknown");
    await openDetails(page);
    expect(await page.textContent("#approval-title")).toBe(question);
    expect(await page.textContent("#approval-message")).toContain("Checking has €2,340.12 now");
    await shot(page, "outcome-unknown", true);
    await page.keyboard.press("Escape");
    expect(await asked(page)).toEqual([`card:${question}`, `unknown:${question}`]);

    // The composer works while the question waits: it shows the balances, then takes the answer.
    expect(await page.isDisabled("#prompt")).toBe(false);
    await page.fill("#prompt", "what's my balance?");
    await page.press("#prompt", "Enter");
    await expect.poll(() => page.textContent("#toast")).toContain("Checking: €2,340.12");
    await page.fill("#prompt", "it went through");
    await page.press("#prompt", "Enter");
    await settle(page);
    await expect.poll(() => lastAnswer(page)).toContain("you said the transfer went through");
    const transcript = (await page.textContent("#transcript")) ?? "";
    expect(transcript).not.toMatch(/The person (confirmed|chose)|the call to/);
    // The person's word, not the bank's booking: no green Done.
    expect(await page.textContent("#transcript .tool-row .tool-status")).toBe("You said it went through");
    expect(await page.getAttribute("#transcript .tool-row", "data-status")).toBe("confirmed");
    expect(await page.textContent("#transcript .tool-row .tool-result")).toMatch(
      /^You said this went through, so it was not run again\. The bank did not confirm it here/,
    );
    // The audit panel lists each event once, however often the reload recorded it.
    const listed = page.locator("#audit .audit-list li");
    await expect.poll(() => listed.count()).toBeGreaterThan(0);
    const lines = await listed.evaluateAll((lis) => lis.map((li) => li.lastChild?.textContent?.trim() ?? ""));
    expect(lines).toEqual([...new Set(lines)]);
    expect((await counts(page))["transfer"]).toBeUndefined();
  },
);

test("'Cancel it' after the reload shows the person's choice, not a red Failed", RETRY, async () => {
  const page = await fresh("?delay=2&bankms=4000");
  await reloadMidCall(page);
  expect((await asked(page)).map((a) => a.split(":")[0])).toEqual(["card"]);
  // Focus starts on the choice that cannot move money; deciding happens on the card.
  await expect
    .poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset["decision"]))
    .toBe("cancel");
  await page.click("#transcript .approval-card [data-decision='cancel']");
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("I won't run the transfer again");
  const row = page.locator("#transcript .tool-row");
  expect(await row.locator(".tool-status").textContent()).toBe("Cancelled");
  expect(await row.getAttribute("data-status")).toBe("cancelled");
  expect(await row.locator(".tool-result").textContent()).toContain("You chose not to run it again");
  expect(await page.textContent("#transcript")).not.toMatch(/The person (confirmed|chose)|Failed/);
  expect(await page.locator("#events").textContent()).toContain("Cancelled by you");
  expect((await counts(page))["transfer"]).toBeUndefined();
});

test("'Run it again' after the reload books it once", RETRY, async () => {
  const page = await fresh("?delay=2&bankms=4000");
  await reloadMidCall(page);
  expect((await asked(page)).length).toBe(1);
  await openDetails(page);
  await page.click("#unknown-again");
  await page.waitForSelector("body[data-status='idle']", { timeout: 15_000 });
  await expect.poll(() => lastAnswer(page)).toContain("Sent €5.00 to Bob");
  expect((await counts(page))["transfer"]).toBe(1);
});
