/**
 * axe-core on the demo in each state a person meets: empty, streaming, the approval dialog, editing
 * in it, the grants panel with a grant, the dark theme, and 375 px with a drawer open. Serious and
 * critical violations fail the test.
 */
import { expect, test } from "vitest";
import type { BrowserContext } from "playwright";
import { ask, axeProblems, lastAnswer, newContext, openDemo, say, settle, useDemo } from "./harness.js";

useDemo();

/** The demo with animations off, so axe never measures a dialog halfway through fading in. */
async function still(context: BrowserContext, query?: string) {
  const page = await openDemo(context, query);
  await page.emulateMedia({ reducedMotion: "reduce" });
  return page;
}

test("light theme: empty, streaming, dialog, editing, grants panel", async () => {
  const page = await still(await newContext(), "?delay=25");
  expect(await axeProblems(page), "empty").toEqual([]);

  await page.fill("#prompt", "Explain how approvals work");
  await page.press("#prompt", "Enter");
  await expect.poll(() => lastAnswer(page).then((t) => t.length), { timeout: 10_000 }).toBeGreaterThan(30);
  expect(await axeProblems(page), "streaming").toEqual([]);
  await page.click("#stop");
  await settle(page);

  expect(await say(page, "Send 42 to Bob")).toBe("asked");
  expect(await axeProblems(page), "dialog").toEqual([]);
  await page.click("#edit-toggle");
  await page.fill("#edit-amount", "-1");
  await expect.poll(() => page.textContent("#edit-amount-error")).toBe("Enter an amount above 0.");
  expect(await axeProblems(page), "edit").toEqual([]);
  await page.fill("#edit-amount", "42");
  await page.click("#approve-always");
  await settle(page);
  await expect.poll(() => page.locator("#grants .grant").count()).toBe(1);
  expect(await axeProblems(page), "grants panel").toEqual([]);
});

test("dark theme and 375 px", async () => {
  const dark = await still(await newContext(undefined, "dark"));
  expect(await dark.getAttribute("html", "data-theme")).toBe("dark");
  expect(await say(dark, "pay eve 7")).toBe("asked");
  expect(await axeProblems(dark), "dark dialog").toEqual([]);
  await dark.click("#deny");
  await settle(dark);
  expect(await axeProblems(dark), "dark after a declined call").toEqual([]);

  const narrow = await still(await newContext({ width: 375, height: 812 }));
  expect(await say(narrow, "Send 42 to Bob")).toBe("asked");
  expect(await axeProblems(narrow), "375 px dialog").toEqual([]);
  await narrow.click("#approve-once");
  await settle(narrow);
  expect(await axeProblems(narrow), "375 px").toEqual([]);
  await narrow.click("#toggle-panel");
  expect(await axeProblems(narrow), "375 px panel drawer").toEqual([]);
});

test("every theme at 1280 and 375 px: the welcome, a card waiting for a decision, a reply and a declined call", async () => {
  for (const theme of ["light", "dark", "ocean", "forest", "sunset"]) {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 375, height: 812 },
    ]) {
      const context = await newContext(viewport, theme === "dark" ? "dark" : "light");
      await context.addInitScript((t) => localStorage.setItem("kaboo-demo:theme", t), theme);
      const page = await still(context);
      const where = `${theme} ${viewport.width}px`;
      expect(await page.getAttribute("html", "data-theme")).toBe(theme);
      expect(await axeProblems(page), `${where} welcome`).toEqual([]);
      expect(await ask(page, "Send 42 to Bob")).toBe("asked");
      expect(await axeProblems(page), `${where} card`).toEqual([]);
      await page.click("#transcript .approval-card [data-decision='deny']");
      await settle(page);
      expect(await ask(page, "what's my balance?")).toBe("answered");
      expect(await axeProblems(page), `${where} reply and declined call`).toEqual([]);
      await context.close();
    }
  }
});
