/**
 * The activity panel's Trace view: the spans `TracingHook` made in the page (the real OpenTelemetry SDK),
 * drawn as a waterfall. A gated payment asked and then approved shows both runs, the call asked in the
 * first and approved (and run) in the second, each row with its duration in milliseconds.
 */
import type { Page } from "playwright";
import { expect, test } from "vitest";
import { ask, axeProblems, counts, fresh, lastAnswer, newContext, openDemo, settle, shot, useDemo } from "./harness.js";

useDemo();

/** The rows of each run drawn, as their visible texts. */
async function runs(
  page: Page,
): Promise<{ title: string; rows: { op: string; name: string; ms: string; label: string }[] }[]> {
  return page.locator("#trace .trace-run").evaluateAll((sections) =>
    sections.map((s) => ({
      title: s.querySelector(".trace-run-title")?.textContent ?? "",
      rows: [...s.querySelectorAll<HTMLElement>(".trace-row")].map((li) => ({
        op: li.dataset["op"] ?? "",
        name: li.querySelector(".trace-name")?.textContent ?? "",
        ms: li.querySelector(".trace-ms")?.textContent ?? "",
        label: li.querySelector(".trace-label")?.textContent ?? "",
      })),
    })),
  );
}

test("a payment asked, then approved: the Trace view shows both runs, the call asked and approved, durations in ms", async () => {
  const page = await fresh();
  // Nothing traced before the first run; the tracing code is not part of the page's start.
  const loaded = () =>
    page.evaluate(() => performance.getEntriesByType("resource").some((r) => /tracing|trace-view/.test(r.name)));
  expect(await loaded()).toBe(false);
  expect(await ask(page, "Send 5 to Bob")).toBe("asked");
  await page.locator("#transcript .approval-card [data-decision='once']").click();
  await settle(page);
  await expect.poll(() => lastAnswer(page)).toContain("Sent €5.00 to Bob");
  expect((await counts(page))["transfer"]).toBe(1);

  await page.click("#show-trace");
  expect(await page.getAttribute("#show-trace", "aria-pressed")).toBe("true");
  expect(await page.isVisible("#events")).toBe(false);
  await page.waitForSelector("#trace .trace-run");
  const drawn = await runs(page);
  expect(drawn).toHaveLength(2);
  const [asking, resuming] = drawn as [(typeof drawn)[0], (typeof drawn)[0]];

  // The asking run: invoke_agent at the top, paused; the call's span says it was asked.
  expect(asking.rows[0]).toMatchObject({ op: "invoke_agent", name: "invoke_agent bank" });
  expect(asking.rows[0]?.label).toContain("paused for approval");
  const asked = asking.rows.filter((r) => r.op === "execute_tool");
  expect(asked.map((r) => [r.name, r.label])).toEqual([["execute_tool transfer", "asked"]]);
  expect(asking.rows.some((r) => r.op === "chat")).toBe(true);

  // The resuming run answers it: approved by the person, and the ledger ran it once.
  expect(resuming.rows[0]).toMatchObject({ op: "invoke_agent", name: "invoke_agent bank" });
  expect(resuming.rows[0]?.label).toContain("resumes an answer");
  expect(resuming.title).toMatch(/answers the question asked at \d/);
  const approved = resuming.rows.filter((r) => r.op === "execute_tool");
  expect(approved).toHaveLength(1);
  expect(approved[0]?.name).toBe("execute_tool transfer");
  expect(approved[0]?.label).toMatch(/^approved by you · ran$/);

  // Every row has its duration as a number of milliseconds, and a bar inside its run.
  for (const row of [...asking.rows, ...resuming.rows]) expect(row.ms).toMatch(/^\d[\d,]*(\.\d)? ms$/);
  const bars = await page
    .locator("#trace .trace-bar")
    .evaluateAll((els) =>
      els.map((e) => [parseFloat((e as HTMLElement).style.left), parseFloat((e as HTMLElement).style.width)]),
    );
  for (const [left, width] of bars) {
    expect(left).toBeGreaterThanOrEqual(0);
    expect((left ?? 0) + (width ?? 0)).toBeLessThanOrEqual(100.02);
  }
  // A child is indented under its parent.
  const depths = await page
    .locator("#trace .trace-run")
    .first()
    .locator(".trace-row")
    .evaluateAll((els) => els.map((e) => (e as HTMLElement).style.getPropertyValue("--depth")));
  expect(depths[0]).toBe("0");
  expect(depths.slice(1).every((d) => Number(d) >= 1)).toBe(true);
  expect(await axeProblems(page)).toEqual([]);
  await shot(page, "trace-view");

  // Back to the log: the trace hides, the log shows; a new run is drawn when the view opens again.
  await page.click("#show-trace");
  expect(await page.isVisible("#trace")).toBe(false);
  expect(await page.isVisible("#events")).toBe(true);
  expect(await ask(page, "What's my balance?")).toBe("answered");
  await page.click("#show-trace");
  await expect.poll(() => runs(page).then((r) => r.length)).toBe(3);
});

test("the Trace view before any run says nothing was traced, and is clean for axe", async () => {
  const page = await fresh();
  await page.click("#show-trace");
  await expect.poll(() => page.textContent("#trace")).toContain("No run traced yet");
  expect(await axeProblems(page)).toEqual([]);
  await settle(page);
});

test("in every theme at 375 px, in the drawer: a declined call's rows say denied, axe is clean, nothing is wider than the screen", async () => {
  for (const theme of ["light", "dark", "ocean", "forest", "sunset"]) {
    const context = await newContext({ width: 375, height: 812 }, theme === "dark" ? "dark" : "light");
    await context.addInitScript((t) => localStorage.setItem("kaboo-demo:theme", t), theme);
    const page = await openDemo(context);
    await page.emulateMedia({ reducedMotion: "reduce" });
    expect(await ask(page, "Send 42 to Bob")).toBe("asked");
    await page.click("#transcript .approval-card [data-decision='deny']");
    await settle(page);
    await page.click("#toggle-panel");
    await page.click("#show-trace");
    await expect.poll(() => runs(page).then((r) => r.length)).toBe(2);
    const labels = (await runs(page)).flatMap((r) => r.rows.filter((x) => x.op === "execute_tool").map((x) => x.label));
    expect(labels, theme).toEqual(["asked", "denied by you · not run"]);
    expect(await axeProblems(page), `${theme} 375 px trace`).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), theme).toBeLessThanOrEqual(375);
    await context.close();
  }
});
