/**
 * A page for people, not developers: at 375 px nothing is cut or covered (a code block scrolls in
 * its own box, the card is not covered, the placeholder fits); message actions show on hover or
 * focus; the context meter is never red; no indicator flashes for less than 300 ms; and a streamed
 * answer writes each changed node at most once a frame and never rewrites a value it already has.
 */
import { expect, test } from "vitest";
import type { Page } from "playwright";
import { ask, newContext, openDemo, settle, useDemo } from "./harness.js";

useDemo();

const phone = async (query = "?delay=2") => openDemo(await newContext({ width: 375, height: 812 }), query);

/** Whether the placeholder's text fits the input's content box. */
const placeholderFits = (page: Page) =>
  page.evaluate(() => {
    const input = document.querySelector<HTMLInputElement>("#prompt")!;
    const style = getComputedStyle(input);
    const ctx = document.createElement("canvas").getContext("2d")!;
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const box = input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
    return { fits: ctx.measureText(input.placeholder).width <= box, text: input.placeholder };
  });

test("at 375 px: a code block scrolls inside its box, nothing is cut, the card is not covered, the placeholder fits", async () => {
  const page = await phone();
  expect(await placeholderFits(page)).toMatchObject({ fits: true });
  await ask(page, "Explain how approvals work");
  await settle(page);
  const layout = await page.evaluate(() => {
    const bubble = [...document.querySelectorAll<HTMLElement>("#transcript .msg.assistant")].at(-1)!;
    const pre = bubble.querySelector<HTMLElement>("pre")!;
    const b = bubble.getBoundingClientRect();
    const p = pre.getBoundingClientRect();
    return {
      page: document.documentElement.scrollWidth <= window.innerWidth,
      bubbleInside: b.right <= window.innerWidth,
      preInside: p.right <= b.right + 0.5,
      preScrolls: getComputedStyle(pre).overflowX,
      preWider: pre.scrollWidth > pre.clientWidth,
    };
  });
  expect(layout).toEqual({ page: true, bubbleInside: true, preInside: true, preScrolls: "auto", preWider: true });

  expect(await ask(page, "Send 42 to Bob")).toBe("asked");
  expect(await placeholderFits(page)).toMatchObject({ fits: true });
  // Nothing lies on top of the card's buttons: the element at each one's centre is the button.
  const covered = await page.evaluate(
    () =>
      [...document.querySelectorAll<HTMLElement>("#transcript .approval-card button")].filter((b) => {
        b.scrollIntoView({ block: "center", behavior: "instant" });
        const r = b.getBoundingClientRect();
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !b.contains(top);
      }).length,
  );
  expect(covered).toBe(0);
});

test("calm: Copy shows on hover or focus, no developer words in the conversation, the context meter is not red", async () => {
  const page = await openDemo(await newContext());
  await ask(page, "hello");
  await ask(page, "what's my balance?");
  await settle(page);
  const first = page.locator("#transcript .msg.assistant").first();
  const actions = first.locator(".msg-actions");
  expect(await actions.evaluate((e) => getComputedStyle(e).opacity)).toBe("0");
  await first.hover();
  await expect.poll(() => actions.evaluate((e) => getComputedStyle(e).opacity)).toBe("1");
  await page.mouse.move(0, 0);
  await first.locator("button[data-action='copy']").focus();
  await expect.poll(() => actions.evaluate((e) => getComputedStyle(e).opacity)).toBe("1");
  expect(await page.textContent("#transcript")).not.toMatch(/Tool `|get_balance|transfer\(|tool_call|interrupt/i);
  // The meter says how full the context is, in one colour: no red "danger" zone for people.
  expect(
    await page.evaluate(() => {
      const m = document.querySelector<HTMLMeterElement>("#context-meter")!;
      return [m.hasAttribute("low"), m.hasAttribute("high"), m.hasAttribute("optimum")];
    }),
  ).toEqual([false, false, false]);
});

test("no indicator flashes for less than 300 ms: scripted replies come without a 'Thinking…' blink", async () => {
  const page = await openDemo(await newContext(), "");
  // The first question also loads the agent's code; measure an ordinary one after it.
  await ask(page, "hello");
  await settle(page);
  const seen = await page.evaluate(
    () =>
      new Promise<{ shown: number; lookups: number }>((resolve) => {
        const out = { shown: 0, lookups: 0 };
        const look = () => {
          for (const el of document.querySelectorAll<HTMLElement>(
            "#transcript .thinking, #transcript .tool-row[data-status='running'] .tool-status",
          ))
            if (Number(getComputedStyle(el).opacity) > 0) out.shown++;
          if (document.body.dataset["status"] === "idle" && out.lookups++ > 5) return resolve(out);
          requestAnimationFrame(look);
        };
        document.querySelector<HTMLInputElement>("#prompt")!.value = "what's my balance?";
        document.querySelector<HTMLFormElement>("#composer")!.requestSubmit();
        requestAnimationFrame(look);
      }),
  );
  expect(seen.shown).toBe(0);
});

test("streaming: each changed node is written at most once a frame, and nothing is rewritten to what it was", async () => {
  const page = await openDemo(await newContext(), "?delay=12");
  const writes = await page.evaluate(
    () =>
      new Promise<{ records: number; sameValue: number; twiceInAFrame: number; what: string[] }>((resolve) => {
        const out = { records: 0, sameValue: 0, twiceInAFrame: 0, what: [] as string[] };
        let frame = new Map<Node, number>();
        const tick = () => {
          frame = new Map();
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        const observer = new MutationObserver((records) => {
          for (const r of records) {
            out.records++;
            if (r.type === "attributes") {
              const now = (r.target as Element).getAttribute(r.attributeName!);
              if (now === r.oldValue) {
                out.sameValue++;
                out.what.push(`same ${r.attributeName} ${(r.target as Element).outerHTML.slice(0, 100)}`);
              }
              const key = r.target;
              frame.set(key, (frame.get(key) ?? 0) + 1);
              if (frame.get(key) === 2) {
                out.twiceInAFrame++;
                out.what.push(`twice ${r.attributeName} ${(r.target as Element).outerHTML.slice(0, 100)}`);
              }
            }
          }
        });
        observer.observe(document.body, {
          subtree: true,
          attributes: true,
          attributeOldValue: true,
          childList: true,
          characterData: true,
        });
        document.querySelector<HTMLInputElement>("#prompt")!.value = "Explain how approvals work";
        document.querySelector<HTMLFormElement>("#composer")!.requestSubmit();
        const poll = setInterval(() => {
          if (document.body.dataset["status"] !== "idle") return;
          clearInterval(poll);
          observer.disconnect();
          resolve(out);
        }, 20);
      }),
  );
  expect(writes.records).toBeGreaterThan(20);
  expect(writes.what).toEqual([]);
  expect(writes.sameValue).toBe(0);
  expect(writes.twiceInAFrame).toBe(0);
});
