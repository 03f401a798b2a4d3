import { describe, expect, test } from "vitest";
import type { Message } from "../../src/agent/messages/messages.js";
import { toAnthropicMessages } from "../../src/models/anthropic-messages.js";
import { toOpenAIMessages } from "../../src/models/openai-messages.js";

const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));

const conversation: Message[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "Look at this" },
      { type: "image", mimeType: "image/png", data: "iVBORw0K" },
      { type: "image", mimeType: "image/jpeg", url: "https://example.com/a.jpg" },
      { type: "document", mimeType: "text/plain", data: b64("notes: ünïcode"), name: "notes.txt" },
      { type: "document", mimeType: "application/pdf", data: "JVBERi0x", name: "report.pdf" },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "plan", signature: "sig-1" },
      { type: "text", text: "Calling tools." },
      { type: "toolUse", toolUseId: "t1", name: "get_weather", input: { city: "Oslo" } },
      { type: "toolUse", toolUseId: "t2", name: "get_weather", input: '{"city": Oslo' },
      { type: "toolUse", toolUseId: "t3", name: "snapshot", input: {} },
    ],
  },
  {
    role: "user",
    content: [
      {
        type: "toolResult",
        toolUseId: "t1",
        status: "success",
        content: [
          { type: "text", text: "sunny" },
          { type: "json", json: { c: 21 } },
        ],
      },
      { type: "toolResult", toolUseId: "t2", status: "error", content: [{ type: "text", text: "Invalid input" }] },
      {
        type: "toolResult",
        toolUseId: "t3",
        status: "success",
        content: [{ type: "image", mimeType: "image/png", data: "AAAA", name: "shot.png" }],
      },
    ],
  },
  { role: "user", content: [{ type: "text", text: "And now?" }] },
];

describe("toOpenAIMessages", () => {
  test("converts every block kind", () => {
    const out = toOpenAIMessages(conversation, "sys");
    expect(out[0]).toEqual({ role: "system", content: "sys" });
    expect(out[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Look at this" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } },
        { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
        { type: "text", text: "[document notes.txt]\nnotes: ünïcode" },
        { type: "text", text: "[document report.pdf (application/pdf) omitted: not supported by this model endpoint]" },
      ],
    });
    expect(out[2]).toEqual({
      role: "assistant",
      content: "Calling tools.",
      tool_calls: [
        { id: "t1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        { id: "t2", type: "function", function: { name: "get_weather", arguments: '{"city": Oslo' } },
        { id: "t3", type: "function", function: { name: "snapshot", arguments: "{}" } },
      ],
    });
    expect(out[3]).toEqual({ role: "tool", tool_call_id: "t1", content: 'sunny\n{"c":21}' });
    expect(out[4]).toEqual({ role: "tool", tool_call_id: "t2", content: "Error: Invalid input" });
    expect(out[5]).toMatchObject({ role: "tool", tool_call_id: "t3" });
    // Tool messages are text-only on most servers: the image follows in a user message.
    expect(out[6]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Images returned by tool calls:" },
        { type: "text", text: "[image from tool call t3: shot.png]" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    });
    expect(out[7]).toEqual({ role: "user", content: "And now?" });
    expect(out).toHaveLength(8);
  });

  test("reasoning is dropped unless asked for; assistant messages with nothing to say are skipped", () => {
    const msgs: Message[] = [
      { role: "assistant", content: [{ type: "reasoning", text: "hmm" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "why" },
          { type: "text", text: "ok" },
        ],
      },
    ];
    expect(toOpenAIMessages(msgs, undefined)).toEqual([{ role: "assistant", content: "ok" }]);
    expect(toOpenAIMessages(msgs, undefined, { sendReasoning: true })).toEqual([
      { role: "assistant", content: "ok", reasoning_content: "why" },
    ]);
  });

  test("an empty tool result still answers the call", () => {
    const out = toOpenAIMessages(
      [{ role: "user", content: [{ type: "toolResult", toolUseId: "x", status: "success", content: [] }] }],
      undefined,
    );
    expect(out).toEqual([{ role: "tool", tool_call_id: "x", content: "(no output)" }]);
  });
});

describe("toAnthropicMessages", () => {
  test("converts every block kind and merges consecutive user turns, tool results first", () => {
    const out = toAnthropicMessages(conversation);
    expect(out).toHaveLength(3);
    expect(out[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Look at this" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0K" } },
        { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
        {
          type: "document",
          source: { type: "text", media_type: "text/plain", data: "notes: ünïcode" },
          title: "notes.txt",
        },
        {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: "JVBERi0x" },
          title: "report.pdf",
        },
      ],
    });
    expect(out[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "plan", signature: "sig-1" },
        { type: "text", text: "Calling tools." },
        { type: "tool_use", id: "t1", name: "get_weather", input: { city: "Oslo" } },
        // The API takes only objects; the error result tells the model what went wrong.
        { type: "tool_use", id: "t2", name: "get_weather", input: {} },
        { type: "tool_use", id: "t3", name: "snapshot", input: {} },
      ],
    });
    expect(out[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "t1",
          content: [
            { type: "text", text: "sunny" },
            { type: "text", text: '{"c":21}' },
          ],
        },
        { type: "tool_result", tool_use_id: "t2", content: [{ type: "text", text: "Invalid input" }], is_error: true },
        {
          type: "tool_result",
          tool_use_id: "t3",
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }],
        },
        { type: "text", text: "And now?" },
      ],
    });
  });

  test("drops unsigned reasoning and empty text, keeps redacted thinking, skips empty messages", () => {
    const out = toAnthropicMessages([
      { role: "user", content: [{ type: "text", text: "" }] },
      { role: "user", content: [{ type: "text", text: "hi" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "unsigned" },
          { type: "reasoning", text: "", redacted: "ENC" },
          { type: "text", text: "" },
          { type: "text", text: "hello" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "again" }] },
    ]);
    expect(out).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      {
        role: "assistant",
        content: [
          { type: "redacted_thinking", data: "ENC" },
          { type: "text", text: "hello" },
          { type: "text", text: "again" },
        ],
      },
    ]);
  });
});
