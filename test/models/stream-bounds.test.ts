/**
 * Model streams from hostile servers on loopback: every wait is bounded (an idle timeout between
 * reads, an overall timeout), and a valid stream with CR-only line endings is read to its end.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Message } from "../../src/agent/messages/messages.js";
import { ModelStreamError } from "../../src/errors.js";
import { AnthropicModel } from "../../src/models/anthropic.js";
import type { ModelStreamEvent } from "../../src/agent/model.js";
import { OpenAIChatModel } from "../../src/models/openai.js";
import { collect, fixture, sseReply, startServer, type TestServer } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

const user: Message[] = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
type Timeouts = { idleTimeoutMs?: number; timeoutMs?: number };
const providers = {
  openai: (t: Timeouts = {}) => new OpenAIChatModel({ baseUrl: `${server.url}/v1`, model: "m", retry: false, ...t }),
  anthropic: (t: Timeouts = {}) =>
    new AnthropicModel({ baseUrl: server.url, model: "m", apiKey: "k", maxTokens: 100, retry: false, ...t }),
};

/** Collects a stream, or the error it ends with, failing the test if it does not settle within `ms`. */
async function settle(
  stream: AsyncIterable<ModelStreamEvent>,
  ms = 5_000,
): Promise<{ events?: ModelStreamEvent[]; error?: unknown }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([
      collect(stream).then(
        (events) => ({ events }),
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(["openai", "anthropic"] as const)("%s", (provider) => {
  const model = providers[provider];

  test("a valid stream with CR-only line endings is read to its last event", async () => {
    // Without `[DONE]` (many servers end there): the last event then carries data the caller needs.
    const text = fixture(provider, "text.sse").replace(/data: \[DONE\]\n\n$/, "");
    server.reply(sseReply(text.replace(/\r?\n/g, "\r")), sseReply(text));
    const cr = await settle(model().stream(user, { toolSpecs: [] }));
    const expected = await settle(model().stream(user, { toolSpecs: [] }));
    expect(cr.error).toBeUndefined();
    expect(cr.events).toEqual(expected.events);
    expect(cr.events!.length).toBeGreaterThan(3);
  });

  test("a server that keeps the stream alive forever hits the overall timeout", async () => {
    server.reply({ chunks: [], repeat: { piece: ": keep-alive\n\n", everyMs: 20 } });
    const started = Date.now();
    const { error } = await settle(model({ timeoutMs: 400, idleTimeoutMs: 10_000 }).stream(user, { toolSpecs: [] }));
    expect(error).toBeInstanceOf(ModelStreamError);
    expect(error).toMatchObject({ reason: "timeout", code: "MODEL_STREAM_ERROR" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });

  test("a server that goes quiet mid-stream hits the idle timeout; the connection is closed", async () => {
    const first = fixture(provider, "text.sse").split(/(?<=\n\n)/)[0]!;
    const closed = server.closed();
    server.reply({ chunks: [first], hang: true });
    const { error } = await settle(model({ idleTimeoutMs: 300, timeoutMs: 60_000 }).stream(user, { toolSpecs: [] }));
    expect(error).toBeInstanceOf(ModelStreamError);
    expect(error).toMatchObject({ reason: "idle" });
    expect((error as Error).message).toMatch(/300 ms/);
    await expect.poll(() => server.closed(), { timeout: 2_000 }).toBeGreaterThan(closed);
  });

  test("the overall timeout also bounds a server that never sends its headers", async () => {
    server.reply({ silent: true });
    const { error } = await settle(model({ timeoutMs: 300 }).stream(user, { toolSpecs: [] }));
    expect(error).toBeInstanceOf(ModelStreamError);
    expect(error).toMatchObject({ reason: "timeout" });
  });

  test("the caller's abort still wins and is not reported as a timeout", async () => {
    server.reply({ chunks: [], hang: true });
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    setTimeout(() => controller.abort(reason), 100);
    const { error } = await settle(
      model({ idleTimeoutMs: 10_000 }).stream(user, { toolSpecs: [], signal: controller.signal }),
    );
    expect(error).toBe(reason);
  });
});
