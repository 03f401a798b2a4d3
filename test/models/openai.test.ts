import { describe, expect, test } from "vitest";
import { ModelStreamError } from "../../src/errors.js";
import {
  ContextWindowOverflowError,
  ModelError,
  OpenAIChatModel,
  chatCompletionsUrl,
} from "../../src/models/openai.js";
import type { RetryInfo } from "../../src/models/retry.js";
import type { ModelStreamEvent } from "../../src/agent/model.js";
import {
  collect,
  fixture,
  jsonReply,
  sseReply,
  loopbackServer,
  startServer,
  weatherSpec,
  weatherQuestion,
  assemble,
  textEvents,
} from "./helpers.js";

const server = loopbackServer();

const spec = weatherSpec;
const user = weatherQuestion;

function model(extra: Partial<ConstructorParameters<typeof OpenAIChatModel>[0]> = {}): OpenAIChatModel {
  return new OpenAIChatModel({
    baseUrl: `${server.url}/v1`,
    model: "gpt-4o-mini",
    apiKey: "sk-test",
    retry: false,
    ...extra,
  });
}

describe("OpenAIChatModel over a loopback server", () => {
  test("streams plain text, with usage from the last chunk (empty choices)", async () => {
    server.reply(sseReply(fixture("openai", "text.sse")));
    const events = await collect(
      model({ params: { temperature: 0.2 } }).stream(user, { toolSpecs: [spec], systemPrompt: "Be brief." }),
    );
    expect(events).toEqual(textEvents({ inputTokens: 12, outputTokens: 4, totalTokens: 16, cacheReadInputTokens: 8 }));
    const req = server.received[0]!;
    expect(req.url).toBe("/v1/chat/completions");
    expect(req.headers["authorization"]).toBe("Bearer sk-test");
    expect(req.body).toEqual({
      model: "gpt-4o-mini",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Oslo and Rome?" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "get_weather", description: "Weather of a city", parameters: spec.inputSchema },
        },
      ],
    });
  });

  test("keeps a base URL's path prefix and sends no Authorization without a key", async () => {
    server.reply(sseReply(fixture("openai", "text.sse")));
    const m = new OpenAIChatModel({
      baseUrl: `${server.url}/api/v1/`,
      model: "qwen/qwen3-32b",
      headers: { "x-title": "kaboo" },
    });
    await collect(m.stream(user, { toolSpecs: [] }));
    const req = server.received[0]!;
    expect(req.url).toBe("/api/v1/chat/completions");
    expect(req.headers["authorization"]).toBeUndefined();
    expect(req.headers["x-title"]).toBe("kaboo");
    expect(req.body.tools).toBeUndefined();
  });

  test("assembles two parallel tool calls interleaved by index", async () => {
    server.reply(sseReply(fixture("openai", "parallel-tools.sse")));
    const r = await assemble(model().stream(user, { toolSpecs: [spec] }));
    expect(r).toEqual({
      stopReason: "toolUse",
      message: {
        role: "assistant",
        content: [
          { type: "toolUse", toolUseId: "call_oslo", name: "get_weather", input: { city: "Oslo" } },
          { type: "toolUse", toolUseId: "call_rome", name: "get_weather", input: { city: "Rome" } },
        ],
      },
    });
  });

  test.each(["reasoning.sse", "reasoning-openrouter.sse"])("streams reasoning before the text (%s)", async (name) => {
    server.reply(sseReply(fixture("openai", name)));
    const r = await assemble(model().stream(user, { toolSpecs: [] }));
    expect(r.partial).toBeFalsy();
    const content = r.message.content;
    expect(content.map((b) => b.type)).toEqual(["reasoning", "text"]);
    expect(content[0]).toEqual({
      type: "reasoning",
      text: name === "reasoning.sse" ? "The user greets. Answer briefly." : "Thinking.",
    });
  });

  test("a stream cut in the middle of a tool call gets no stop event; the runner reports it", async () => {
    server.reply(sseReply(fixture("openai", "cut-tool.sse")));
    const events = await collect(model().stream(user, { toolSpecs: [spec] }));
    expect(events.some((e) => e.type === "messageStop" || e.type === "contentBlockStop")).toBe(false);
    server.reply(sseReply(fixture("openai", "cut-tool.sse")));
    await expect(assemble(model().stream(user, { toolSpecs: [spec] }))).rejects.toThrow(
      /middle of a call to tool "get_weather"/,
    );
  });

  test("a connection torn down mid-stream is a ModelStreamError", async () => {
    const text = `${fixture("openai", "text.sse").split("\n\n").slice(0, 2).join("\n\n")}\n\n`;
    server.reply(sseReply(text, { destroy: true }));
    await expect(collect(model().stream(user, { toolSpecs: [] }))).rejects.toBeInstanceOf(ModelStreamError);
  });

  test("passes a garbled tool name through untouched", async () => {
    server.reply(sseReply(fixture("openai", "garbled-name.sse")));
    const r = await assemble(model().stream(user, { toolSpecs: [spec] }));
    expect(r.message.content[0]).toMatchObject({
      type: "toolUse",
      name: "get_weather<|channel|>commentary",
      input: { city: "Oslo" },
    });
  });

  test("arguments that do not parse reach the runner as the raw string", async () => {
    server.reply(sseReply(fixture("openai", "bad-args.sse")));
    const r = await assemble(model().stream(user, { toolSpecs: [spec] }));
    expect(r.message.content[0]).toMatchObject({ type: "toolUse", toolUseId: "call_bad", input: '{"city": Oslo' });
  });

  test("a chunk that is not JSON is a ModelStreamError, not a hang", async () => {
    server.reply(sseReply(fixture("openai", "malformed.sse")));
    await expect(collect(model().stream(user, { toolSpecs: [] }))).rejects.toThrow(ModelStreamError);
    server.reply(sseReply(fixture("openai", "malformed.sse")));
    await expect(collect(model().stream(user, { toolSpecs: [] }))).rejects.toThrow(/not JSON/);
  });

  test("a chunk with wrong types is rejected before it becomes tool input", async () => {
    server.reply(sseReply(fixture("openai", "wrong-type.sse")));
    await expect(collect(model().stream(user, { toolSpecs: [spec] }))).rejects.toThrow(
      /malformed chunk[\s\S]*arguments/,
    );
  });

  test("an error object inside the stream is a ModelError with the provider's message", async () => {
    server.reply(sseReply(fixture("openai", "stream-error.sse")));
    const error = await collect(model().stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error.providerMessage).toBe("Upstream provider disconnected");
  });

  test("a JSON answer instead of a stream is a clear error", async () => {
    server.reply(jsonReply(200, '{"id":"x","choices":[{"message":{"role":"assistant","content":"hi"}}]}'));
    await expect(collect(model().stream(user, { toolSpecs: [] }))).rejects.toThrow(/instead of an event stream/);
  });
});

describe("OpenAIChatModel failures", () => {
  test("429 with Retry-After is retried after the asked delay, then succeeds", async () => {
    server.reply(
      jsonReply(429, fixture("openai", "rate-limit.json"), { "retry-after": "1" }),
      sseReply(fixture("openai", "text.sse")),
    );
    const retries: RetryInfo[] = [];
    const events = await collect(model({ retry: { onRetry: (i) => retries.push(i) } }).stream(user, { toolSpecs: [] }));
    expect(events.at(-2)).toEqual({ type: "messageStop", stopReason: "endTurn" });
    expect(server.received).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.delayMs).toBe(1000);
    expect(retries[0]!.error).toBeInstanceOf(ModelError);
  });

  test("with retry off, a 429 is a ModelError with status, message and retryAfter", async () => {
    server.reply(jsonReply(429, fixture("openai", "rate-limit.json"), { "retry-after": "7" }));
    const error = await collect(model({ retry: false }).stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      code: "MODEL_ERROR",
      status: 429,
      retryAfter: 7,
      errorCode: "rate_limit_exceeded",
      provider: "openai",
    });
    expect(error.providerMessage).toMatch(/^Rate limit reached/);
    expect(server.received).toHaveLength(1);
  });

  test("5xx is retried with backoff up to maxAttempts", async () => {
    const boom = jsonReply(503, '{"error":{"message":"overloaded"}}');
    server.reply(boom, boom, boom);
    const retries: RetryInfo[] = [];
    const error = await collect(
      model({ retry: { maxAttempts: 3, baseDelayMs: 4, maxDelayMs: 50, onRetry: (i) => retries.push(i) } }).stream(
        user,
        {
          toolSpecs: [],
        },
      ),
    ).catch((e) => e);
    expect(error).toMatchObject({ status: 503, providerMessage: "overloaded" });
    expect(server.received).toHaveLength(3);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    for (const r of retries) expect(r.delayMs).toBeLessThanOrEqual(4 * 2 ** (r.attempt - 1));
  });

  test("a Retry-After longer than maxDelayMs is not waited out", async () => {
    server.reply(jsonReply(429, fixture("openai", "rate-limit.json"), { "retry-after": "3600" }));
    const error = await collect(model({ retry: {} }).stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(error).toMatchObject({ status: 429, retryAfter: 3600 });
    expect(server.received).toHaveLength(1);
  });

  test.each(["overflow.json", "overflow-llamacpp.json", "overflow-vllm.json"])(
    "a 400 context overflow (%s) is a ContextWindowOverflowError, not retried",
    async (name) => {
      server.reply(jsonReply(400, fixture("openai", name)));
      const error = await collect(model({ retry: {} }).stream(user, { toolSpecs: [] })).catch((e) => e);
      expect(error).toBeInstanceOf(ContextWindowOverflowError);
      expect(error).toMatchObject({ code: "CONTEXT_WINDOW_OVERFLOW", status: 400 });
      expect(error.providerMessage).toMatch(/context/);
      expect(server.received).toHaveLength(1);
    },
  );

  test("a 400 that is not an overflow is a plain ModelError", async () => {
    server.reply(
      jsonReply(
        400,
        '{"error":{"message":"Invalid value for temperature","type":"invalid_request_error","code":null}}',
      ),
    );
    const error = await collect(model({ retry: {} }).stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error.providerMessage).toBe("Invalid value for temperature");
  });

  test("a network error before any byte is retried, then reported", async () => {
    const dead = await startServer();
    const url = dead.url;
    await dead.close();
    const retries: RetryInfo[] = [];
    const m = new OpenAIChatModel({
      baseUrl: url,
      model: "m",
      retry: { maxAttempts: 2, baseDelayMs: 1, onRetry: (i) => retries.push(i) },
    });
    const error = await collect(m.stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toMatch(/could not be reached/);
    expect(retries).toHaveLength(1);
  });

  test("an AbortSignal stops a stream in the middle and closes the connection", async () => {
    const first = `${fixture("openai", "text.sse").split("\n\n").slice(0, 2).join("\n\n")}\n\n`;
    server.reply(sseReply(first, { hang: true }));
    const closedBefore = server.closed();
    const controller = new AbortController();
    const seen: ModelStreamEvent[] = [];
    const run = (async () => {
      for await (const e of model().stream(user, { toolSpecs: [], signal: controller.signal })) {
        seen.push(e);
        if (e.type === "contentBlockDelta") controller.abort(new DOMException("stop", "AbortError"));
      }
    })();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(seen.at(-1)).toMatchObject({ type: "contentBlockDelta" });
    await expect.poll(() => server.closed()).toBeGreaterThan(closedBefore);
  });

  test("an aborted signal stops the retry wait", async () => {
    server.reply(jsonReply(429, fixture("openai", "rate-limit.json"), { "retry-after": "20" }));
    const controller = new AbortController();
    const m = model({
      retry: { maxDelayMs: 60_000, onRetry: () => controller.abort(new DOMException("stop", "AbortError")) },
    });
    await expect(collect(m.stream(user, { toolSpecs: [], signal: controller.signal }))).rejects.toMatchObject({
      name: "AbortError",
    });
  });
});

test("chatCompletionsUrl joins base URLs with and without a prefix", () => {
  expect(chatCompletionsUrl("https://api.openai.com/v1")).toBe("https://api.openai.com/v1/chat/completions");
  expect(chatCompletionsUrl("https://openrouter.ai/api/v1/")).toBe("https://openrouter.ai/api/v1/chat/completions");
  expect(chatCompletionsUrl("http://localhost:8080/v1/chat/completions")).toBe(
    "http://localhost:8080/v1/chat/completions",
  );
});
