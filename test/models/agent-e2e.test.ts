// An Agent with tools, over each provider, against the loopback server: the bodies the server
// receives show the tool results are sent back in each provider's format.
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { AfterModelCallEvent, Agent, messageText, tool, type Model } from "../../src/index.js";
import { ContextWindowOverflowError } from "../../src/models/errors.js";
import { ModelStreamError } from "../../src/errors.js";
import { AnthropicModel } from "../../src/models/anthropic.js";
import { OpenAIChatModel } from "../../src/models/openai.js";
import { fixture, jsonReply, sseReply, loopbackServer } from "./helpers.js";

const server = loopbackServer();

function weatherTool(calls: string[]) {
  return tool({
    name: "get_weather",
    description: "Weather of a city",
    inputSchema: z.object({ city: z.string() }),
    callback: ({ city }) => {
      calls.push(city);
      return { city, sky: city === "Oslo" ? "snow" : "sun" };
    },
  });
}

/** A weather agent on `model` asked about Oslo and Rome: it looks both up and ends with the text fixture's answer. */
async function askWeather(model: Model) {
  const calls: string[] = [];
  const agent = new Agent({ model, systemPrompt: "You report weather.", tools: [weatherTool(calls)] });
  const result = await agent.invoke("Weather in Oslo and Rome?");
  expect(result.stopReason).toBe("endTurn");
  expect(messageText(result.message)).toBe("Hello, wörld ✓");
  expect(calls.sort()).toEqual(["Oslo", "Rome"]);
  return result;
}

describe("Agent + OpenAIChatModel", () => {
  test("runs two parallel tool calls and sends both results back as tool messages", async () => {
    server.reply(sseReply(fixture("openai", "parallel-tools.sse")), sseReply(fixture("openai", "text.sse")));
    const result = await askWeather(
      new OpenAIChatModel({ baseUrl: `${server.url}/v1`, model: "gpt-4o-mini", retry: false }),
    );
    expect(server.received).toHaveLength(2);
    const second = server.received[1]!.body;
    expect(second.tools.map((t: any) => t.function.name)).toEqual(["get_weather"]);
    expect(second.messages).toEqual([
      { role: "system", content: "You report weather." },
      { role: "user", content: "Weather in Oslo and Rome?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_oslo", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
          { id: "call_rome", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_oslo", content: '{"city":"Oslo","sky":"snow"}' },
      { role: "tool", tool_call_id: "call_rome", content: '{"city":"Rome","sky":"sun"}' },
    ]);
    expect(result.metrics.usage).toMatchObject({ inputTokens: 92, outputTokens: 34, totalTokens: 126 });
  });

  test("unparsable arguments become an error result; the raw arguments go back as they came", async () => {
    server.reply(sseReply(fixture("openai", "bad-args.sse")), sseReply(fixture("openai", "text.sse")));
    const calls: string[] = [];
    const agent = new Agent({
      model: new OpenAIChatModel({ baseUrl: server.url, model: "m", retry: false }),
      tools: [weatherTool(calls)],
    });
    await agent.invoke("Weather?");
    expect(calls).toEqual([]);
    const messages = server.received[1]!.body.messages;
    expect(messages[1].tool_calls[0].function.arguments).toBe('{"city": Oslo');
    expect(messages[2]).toMatchObject({ role: "tool", tool_call_id: "call_bad" });
    expect(messages[2].content).toMatch(/^Error/);
  });

  test("a stream cut mid tool call fails the run and leaves no half-written call in the transcript", async () => {
    server.reply(sseReply(fixture("openai", "cut-tool.sse")));
    const agent = new Agent({
      model: new OpenAIChatModel({ baseUrl: server.url, model: "m", retry: false }),
      tools: [weatherTool([])],
    });
    await expect(agent.invoke("Weather?")).rejects.toBeInstanceOf(ModelStreamError);
    expect(agent.messages.flatMap((m) => m.content).some((b) => b.type === "toolUse")).toBe(false);
  });
});

describe("Agent + AnthropicModel", () => {
  test("runs two tool calls and sends both results back as tool_result blocks in one user turn", async () => {
    server.reply(sseReply(fixture("anthropic", "tools.sse")), sseReply(fixture("anthropic", "text.sse")));
    await askWeather(
      new AnthropicModel({ baseUrl: server.url, model: "claude-sonnet-4-5", maxTokens: 512, retry: false }),
    );
    const second = server.received[1]!.body;
    expect(second.system).toBe("You report weather.");
    expect(second.max_tokens).toBe(512);
    expect(second.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Oslo and Rome?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking both." },
          { type: "tool_use", id: "toolu_oslo", name: "get_weather", input: { city: "Oslo" } },
          { type: "tool_use", id: "toolu_rome", name: "get_weather", input: { city: "Rome" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_oslo",
            content: [{ type: "text", text: '{"city":"Oslo","sky":"snow"}' }],
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_rome",
            content: [{ type: "text", text: '{"city":"Rome","sky":"sun"}' }],
          },
        ],
      },
    ]);
  });

  test("thinking goes back with its signature on the next call", async () => {
    server.reply(sseReply(fixture("anthropic", "thinking.sse")), sseReply(fixture("anthropic", "text.sse")));
    const agent = new Agent({
      model: new AnthropicModel({ baseUrl: server.url, model: "c", maxTokens: 64, retry: false }),
    });
    await agent.invoke("6 x 7?");
    await agent.invoke("Sure?");
    const assistant = server.received[1]!.body.messages[1];
    expect(assistant.content.slice(0, 2)).toEqual([
      {
        type: "thinking",
        thinking: "Let me think step by step.",
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
      },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" },
    ]);
  });
});

test("a hook clears context on ContextWindowOverflowError and retries the call", async () => {
  server.reply(jsonReply(400, fixture("anthropic", "overflow.json")), sseReply(fixture("anthropic", "text.sse")));
  const history = [
    { role: "user" as const, content: [{ type: "text" as const, text: "x".repeat(1000) }] },
    { role: "assistant" as const, content: [{ type: "text" as const, text: "long answer" }] },
  ];
  const agent = new Agent({
    model: new AnthropicModel({ baseUrl: server.url, model: "c", maxTokens: 64 }),
    messages: history,
  });
  const seen: unknown[] = [];
  agent.hooks.addCallback(AfterModelCallEvent, (e) => {
    seen.push(e.error);
    if (e.error instanceof ContextWindowOverflowError) {
      agent.messages.splice(0, agent.messages.length - 1);
      e.retry = true;
    }
  });
  const result = await agent.invoke("Short question");
  expect(result.stopReason).toBe("endTurn");
  expect(seen[0]).toBeInstanceOf(ContextWindowOverflowError);
  expect(server.received).toHaveLength(2);
  expect(server.received[0]!.body.messages).toHaveLength(3);
  expect(server.received[1]!.body.messages).toEqual([
    { role: "user", content: [{ type: "text", text: "Short question" }] },
  ]);
});
