import { describe, expect, test } from "vitest";
import { ModelStreamError } from "../../src/errors.js";
import { AnthropicModel, ContextWindowOverflowError, ModelError, messagesUrl } from "../../src/models/anthropic.js";
import { anthropicStopReason } from "../../src/models/anthropic-stream.js";
import type { RetryInfo } from "../../src/models/retry.js";
import {
  collect,
  fixture,
  jsonReply,
  sseReply,
  loopbackServer,
  weatherSpec,
  weatherQuestion,
  assemble,
  textEvents,
} from "./helpers.js";

const server = loopbackServer();

const spec = weatherSpec;
const user = weatherQuestion;

function model(extra: Partial<ConstructorParameters<typeof AnthropicModel>[0]> = {}): AnthropicModel {
  return new AnthropicModel({
    baseUrl: server.url,
    model: "claude-sonnet-4-5",
    maxTokens: 1024,
    apiKey: "sk-ant-test",
    retry: false,
    ...extra,
  });
}

describe("AnthropicModel over a loopback server", () => {
  test("streams text (ping ignored) with usage, and posts the documented request", async () => {
    server.reply(sseReply(fixture("anthropic", "text.sse")));
    const events = await collect(
      model({ params: { temperature: 0 } }).stream(user, { toolSpecs: [spec], systemPrompt: "Be brief." }),
    );
    expect(events).toEqual(
      textEvents({ inputTokens: 35, outputTokens: 15, totalTokens: 50, cacheReadInputTokens: 10 }),
    );
    const req = server.received[0]!;
    expect(req.url).toBe("/v1/messages");
    expect(req.headers["x-api-key"]).toBe("sk-ant-test");
    expect(req.headers["anthropic-version"]).toBe("2023-06-01");
    expect(req.headers["anthropic-dangerous-direct-browser-access"]).toBeUndefined();
    expect(req.body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      temperature: 0,
      stream: true,
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Oslo and Rome?" }] }],
      tools: [{ name: "get_weather", description: "Weather of a city", input_schema: spec.inputSchema }],
    });
  });

  test("sends the browser-access header only when the caller opts in", async () => {
    server.reply(sseReply(fixture("anthropic", "text.sse")));
    await collect(model({ dangerouslyAllowBrowser: true }).stream(user, { toolSpecs: [] }));
    expect(server.received[0]!.headers["anthropic-dangerous-direct-browser-access"]).toBe("true");
  });

  test("assembles text and two tool_use blocks from input_json_delta", async () => {
    server.reply(sseReply(fixture("anthropic", "tools.sse")));
    const r = await assemble(model().stream(user, { toolSpecs: [spec] }));
    expect(r).toEqual({
      stopReason: "toolUse",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: "Checking both." },
          { type: "toolUse", toolUseId: "toolu_oslo", name: "get_weather", input: { city: "Oslo" } },
          { type: "toolUse", toolUseId: "toolu_rome", name: "get_weather", input: { city: "Rome" } },
        ],
      },
    });
  });

  test("keeps thinking with its signature, and redacted thinking", async () => {
    server.reply(sseReply(fixture("anthropic", "thinking.sse")));
    const r = await assemble(model().stream(user, { toolSpecs: [] }));
    expect(r.message.content).toEqual([
      {
        type: "reasoning",
        text: "Let me think step by step.",
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
      },
      { type: "reasoning", text: "", redacted: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" },
      { type: "text", text: "42." },
    ]);
  });

  test("a stream cut in the middle of a tool call gets no stop event; the runner reports it", async () => {
    server.reply(sseReply(fixture("anthropic", "cut-tool.sse")));
    const events = await collect(model().stream(user, { toolSpecs: [spec] }));
    expect(events.some((e) => e.type === "messageStop" || e.type === "contentBlockStop")).toBe(false);
    server.reply(sseReply(fixture("anthropic", "cut-tool.sse")));
    await expect(assemble(model().stream(user, { toolSpecs: [spec] }))).rejects.toThrow(
      /middle of a call to tool "get_weather"/,
    );
  });

  test("passes a garbled tool name through untouched", async () => {
    server.reply(sseReply(fixture("anthropic", "garbled-name.sse")));
    const r = await assemble(model().stream(user, { toolSpecs: [spec] }));
    expect(r.message.content[0]).toMatchObject({ name: "functions.get_weather:0", input: { city: "Oslo" } });
  });

  test("an error event is a ModelError with the provider's type and message", async () => {
    server.reply(sseReply(fixture("anthropic", "error-event.sse")));
    const error = await collect(model().stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ errorType: "overloaded_error", providerMessage: "Overloaded", status: undefined });
  });

  test("an event that is not JSON is a ModelStreamError", async () => {
    server.reply(sseReply(fixture("anthropic", "malformed.sse")));
    await expect(collect(model().stream(user, { toolSpecs: [] }))).rejects.toThrow(ModelStreamError);
  });

  test("a delta with wrong types is rejected before it becomes tool input", async () => {
    server.reply(sseReply(fixture("anthropic", "wrong-type.sse")));
    await expect(collect(model().stream(user, { toolSpecs: [spec] }))).rejects.toThrow(
      /malformed content_block_delta[\s\S]*partial_json/,
    );
  });

  test("an AbortSignal stops a stream in the middle", async () => {
    const head = `${fixture("anthropic", "text.sse").split("\n\n").slice(0, 3).join("\n\n")}\n\n`;
    server.reply(sseReply(head, { hang: true }));
    const closedBefore = server.closed();
    const controller = new AbortController();
    const run = (async () => {
      for await (const e of model().stream(user, { toolSpecs: [], signal: controller.signal })) {
        if (e.type === "contentBlockStart") controller.abort(new DOMException("stop", "AbortError"));
      }
    })();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    await expect.poll(() => server.closed()).toBeGreaterThan(closedBefore);
  });
});

describe("AnthropicModel failures", () => {
  test("429 with Retry-After is retried, then succeeds", async () => {
    server.reply(
      jsonReply(429, fixture("anthropic", "rate-limit.json"), { "retry-after": "0" }),
      sseReply(fixture("anthropic", "text.sse")),
    );
    const retries: RetryInfo[] = [];
    const events = await collect(model({ retry: { onRetry: (i) => retries.push(i) } }).stream(user, { toolSpecs: [] }));
    expect(events.at(-2)).toEqual({ type: "messageStop", stopReason: "endTurn" });
    expect(retries.map((r) => r.delayMs)).toEqual([0]);
    expect(server.received).toHaveLength(2);
  });

  test("with retry off, 429 and 529 are ModelErrors with the provider's message", async () => {
    server.reply(jsonReply(429, fixture("anthropic", "rate-limit.json"), { "retry-after": "12" }));
    const e429 = await collect(model().stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(e429).toMatchObject({
      code: "MODEL_ERROR",
      status: 429,
      retryAfter: 12,
      errorType: "rate_limit_error",
      provider: "anthropic",
    });
    expect(e429.providerMessage).toMatch(/rate limit/);
    server.reply(jsonReply(529, fixture("anthropic", "overloaded.json")));
    const e529 = await collect(model().stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(e529).toMatchObject({ status: 529, errorType: "overloaded_error", retryAfter: undefined });
  });

  test("a 400 'prompt is too long' is a ContextWindowOverflowError", async () => {
    server.reply(jsonReply(400, fixture("anthropic", "overflow.json")));
    const error = await collect(model({ retry: {} }).stream(user, { toolSpecs: [] })).catch((e) => e);
    expect(error).toBeInstanceOf(ContextWindowOverflowError);
    expect(error.providerMessage).toMatch(/^prompt is too long/);
    expect(server.received).toHaveLength(1);
  });
});

test("messagesUrl does not double /v1", () => {
  expect(messagesUrl("https://api.anthropic.com")).toBe("https://api.anthropic.com/v1/messages");
  expect(messagesUrl("https://proxy.example/anthropic/v1/")).toBe("https://proxy.example/anthropic/v1/messages");
});

test("stop reasons map to the runner's", () => {
  expect(
    ["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn", null].map(anthropicStopReason),
  ).toEqual(["endTurn", "toolUse", "maxTokens", "stopSequence", "contentFiltered", "endTurn", "endTurn"]);
});
