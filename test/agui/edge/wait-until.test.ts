/**
 * Serverless hosts freeze a function once its response is delivered, unless it is told to wait:
 * `handle(request, { waitUntil })` (Cloudflare's `ctx`, Vercel's `waitUntil` from `@vercel/functions`,
 * Netlify's `context`) is given, with a thread store, the promise of the run itself, which settles
 * once the run ended or paused and recorded what ran, not when the client went away.
 */
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { Agent, ScriptedModel } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { capturingLogger } from "../../fixtures/logger.js";
import { input, user } from "../helpers.js";
import { post } from "./fixtures.js";

const slowStory = () =>
  new Agent({
    model: new ScriptedModel({ script: () => ({ text: "a long story ".repeat(40) }), chunkSize: 8, delayMs: 5 }),
  });

describe("waitUntil: the run outlives a frozen function's response", () => {
  test("with a store, the host is given the run, which settles once the run ended and was recorded", async () => {
    const store = new MemoryThreadStore();
    const handle = createAguiHandler({ agent: slowStory, stores: { thread: store }, logger: capturingLogger() });
    const kept: Promise<unknown>[] = [];
    const res = await handle(post(input({ threadId: "w1", messages: [user("tell me")] })), {
      waitUntil: (p: Promise<unknown>) => void kept.push(p),
    });
    // The client reads the first bytes and goes away, as a page that navigates does.
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    expect(kept).toHaveLength(1);
    expect((await store.load("w1")).lease).not.toBeNull();
    await Promise.all(kept);
    const record = await store.load("w1");
    expect(record.lease).toBeNull();
    expect(JSON.stringify(record.messages)).toContain("a long story");
  });

  test("a waitUntil that throws changes nothing of the run: it is logged and the run streams to its end", async () => {
    const store = new MemoryThreadStore();
    const logger = capturingLogger();
    const handle = createAguiHandler({ agent: slowStory, stores: { thread: store }, logger });
    const res = await handle(post(input({ threadId: "w2", messages: [user("tell me")] })), {
      waitUntil: () => {
        throw new Error("waitUntil after the response");
      },
    });
    expect(await res.text()).toContain("RUN_FINISHED");
    expect(JSON.stringify(logger.lines)).toContain("waitUntil after the response");
  });

  test("without a store the run is the request's: nothing is handed to waitUntil", async () => {
    const handle = createAguiHandler({
      agent: slowStory,
      trust: { insecureDevelopmentMode: true },
      logger: capturingLogger(),
    });
    const kept: Promise<unknown>[] = [];
    const res = await handle(post(input({ threadId: "w3", messages: [user("tell me")] })), {
      waitUntil: (p: Promise<unknown>) => void kept.push(p),
    });
    expect(await res.text()).toContain("RUN_FINISHED");
    expect(kept).toEqual([]);
  });

  test("a context without waitUntil, or one that is not a function (Deno.serve's info), is ignored", async () => {
    const store = new MemoryThreadStore();
    const handle = createAguiHandler({ agent: slowStory, stores: { thread: store }, logger: capturingLogger() });
    const info = { remoteAddr: { hostname: "127.0.0.1" }, waitUntil: 42 } as never;
    expect(await (await handle(post(input({ threadId: "w4", messages: [user("hi")] })), info)).text()).toContain(
      "RUN_FINISHED",
    );
  });
});
