/**
 * Honest states across time: a failed answer keeps its error where it happened, through later
 * messages, a reload and a settings change; and a model chosen while an answer streams answers from
 * the next question on, as the page says.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ask, lastAnswer, newContext, openDemo, settle, useDemo } from "./harness.js";

useDemo();

let model: Server;
let modelUrl = "";

// A loopback OpenAI-compatible endpoint that streams one fixed answer.
beforeAll(async () => {
  model = createServer((req, res) => {
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "*",
      "access-control-allow-methods": "*",
    };
    if (req.method === "OPTIONS") return void res.writeHead(204, cors).end();
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { ...cors, "content-type": "text/event-stream" });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", model: "m1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.end(
        `${chunk({ role: "assistant", content: "Hello from model m1." }, null)}${chunk({}, "stop")}data: [DONE]\n\n`,
      );
    });
  });
  await new Promise<void>((ok) => model.listen(0, "127.0.0.1", ok));
  const address = model.address();
  modelUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/v1`;
});
afterAll(() => new Promise<void>((ok) => model.close(() => ok())));

const errors = (page: Awaited<ReturnType<typeof openDemo>>) => page.locator("#transcript .run-error").allTextContents();

test("two failed messages both keep their error, through a reload and a settings change", async () => {
  const page = await openDemo(await newContext(), "?delay=2&fail=2");
  expect(await ask(page, "hello")).toBe("answered");
  await expect.poll(() => errors(page)).toHaveLength(1);
  expect(await ask(page, "are you there?")).toBe("answered");
  await expect.poll(() => errors(page)).toHaveLength(2);
  expect((await errors(page)).every((e) => e.includes("The model service did not answer"))).toBe(true);
  // Each error stands under the message that failed.
  const order = await page
    .locator("#transcript > *")
    .evaluateAll((els) =>
      els.map((e) => (e.classList.contains("run-error") ? "error" : e.classList.contains("user") ? "user" : "other")),
    );
  expect(order).toEqual(["user", "error", "user", "error"]);
  // Retry on the last one only.
  expect(await page.locator("#transcript .run-error button").count()).toBe(1);

  await page.goto(page.url().replace("fail=2", "fail=0"));
  await settle(page);
  await expect.poll(() => errors(page)).toHaveLength(2);
  await page.click("#open-settings");
  await page.click("#settings button[value='save']");
  await settle(page);
  await expect.poll(() => errors(page)).toHaveLength(2);
  // Retry answers the last question and its error goes.
  await page.click("#transcript .run-error button");
  await settle(page);
  await expect.poll(() => errors(page)).toHaveLength(1);
  expect(await lastAnswer(page)).toContain("I can't help with");
});

test("a model saved while an answer streams answers from the next question, and the page says so", async () => {
  const page = await openDemo(await newContext(), "?delay=25");
  await page.fill("#prompt", "Explain how approvals work");
  await page.press("#prompt", "Enter");
  // The first answer streams before anything else is done; under a loaded CI its start can take over a second.
  await expect.poll(() => lastAnswer(page).then((t) => t.length), { timeout: 10_000 }).toBeGreaterThan(10);
  await page.click("#open-settings");
  await page.selectOption("#settings select[name='provider']", "openai");
  await page.fill("#settings input[name='baseUrl']", modelUrl);
  await page.fill("#settings input[name='model']", "m1");
  await page.click("#settings button[value='save']");
  await expect.poll(() => page.textContent("#toast")).toContain("the next answer comes from OpenAI-compatible · m1");
  expect(await page.textContent("#model-label")).toBe("OpenAI-compatible · m1");
  await page.click("#stop");
  await settle(page);
  expect(await ask(page, "hello")).toBe("answered");
  await expect.poll(() => lastAnswer(page), { timeout: 10_000 }).toContain("Hello from model m1.");
});

test("a message sent right after a Stop, before the saved model's code has loaded, is answered by that model", async () => {
  const page = await openDemo(await newContext(), "?delay=25");
  // The saved model's code loads on demand: slow it down, as on a slow network.
  await page.route(
    (url) => url.href.includes("openai") && !url.pathname.startsWith("/v1"),
    async (route) => {
      await new Promise((r) => setTimeout(r, 1_500));
      await route.continue();
    },
  );
  await page.fill("#prompt", "Explain how approvals work");
  await page.press("#prompt", "Enter");
  // The first answer streams before anything else is done; under a loaded CI its start can take over a second.
  await expect.poll(() => lastAnswer(page).then((t) => t.length), { timeout: 10_000 }).toBeGreaterThan(10);
  await page.click("#open-settings");
  await page.selectOption("#settings select[name='provider']", "openai");
  await page.fill("#settings input[name='baseUrl']", modelUrl);
  await page.fill("#settings input[name='model']", "m1");
  await page.click("#settings button[value='save']");
  await page.click("#stop");
  await settle(page);
  await page.fill("#prompt", "hello");
  await page.press("#prompt", "Enter");
  await expect.poll(() => lastAnswer(page), { timeout: 15_000 }).toContain("Hello from model m1.");
  await settle(page);
  // Nothing the person typed was lost on the way.
  const users = await page.locator("#transcript .msg.user").allTextContents();
  expect(users.at(-1)).toContain("hello");
});
