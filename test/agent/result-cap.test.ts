/** The size cap on tool results: what the model is sent of one result is bounded, for every tool. */
import fc from "fast-check";
import { afterEach, describe, expect, test, vi } from "vitest";
import * as z from "zod/v4";
import { Agent, capToolResult, DEFAULT_MAX_TOOL_RESULT_CHARS, tool, type ToolResultBlock } from "../../src/index.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { expectConsistentTranscript } from "./helpers.js";

afterEach(() => vi.restoreAllMocks());

async function resultOf(t: ReturnType<typeof tool>): Promise<ToolResultBlock> {
  const model = new ScriptedModel({ script: [{ toolCalls: [{ name: t.name, input: {} }] }, { text: "ok" }] });
  const agent = new Agent({ model, tools: [t] });
  await agent.invoke("go");
  expectConsistentTranscript(agent.messages);
  return agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"))[0]!;
}

const chars = (r: ToolResultBlock) =>
  r.content.reduce(
    (n, p) => n + (p.type === "text" ? p.text.length : p.type === "json" ? JSON.stringify(p.json).length : 0),
    0,
  );

describe("a tool result over the cap", () => {
  test("a 5 MB text result reaches the model cut to the default cap, with a note and a logged warning", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const huge = tool({
      name: "huge",
      description: "",
      inputSchema: z.object({}),
      callback: () => "x".repeat(5_000_000),
    });
    const r = await resultOf(huge);
    expect(r.status).toBe("success");
    expect(chars(r)).toBeLessThan(DEFAULT_MAX_TOOL_RESULT_CHARS + 200);
    expect((r.content.at(-1) as { text: string }).text).toMatch(/cut to 100000 characters: 4900000 more not shown/);
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/size cap/),
      expect.objectContaining({ cutChars: 4_900_000 }),
    );
  });

  test("a huge error message and a huge JSON result are capped too", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const throws = tool({
      name: "throws",
      description: "",
      inputSchema: z.object({}),
      callback: () => {
        throw new Error("e".repeat(3_000_000));
      },
    });
    const r = await resultOf(throws);
    expect(r.status).toBe("error");
    expect(chars(r)).toBeLessThan(DEFAULT_MAX_TOOL_RESULT_CHARS + 200);
    const json = tool({
      name: "json",
      description: "",
      inputSchema: z.object({}),
      callback: () => ({ rows: Array(200_000).fill("row") }),
    });
    expect(chars(await resultOf(json))).toBeLessThan(DEFAULT_MAX_TOOL_RESULT_CHARS + 200);
  });

  test("a tool can set its own cap", async () => {
    const t = {
      ...tool({ name: "t", description: "", inputSchema: z.object({}), callback: () => "y".repeat(500) }),
      maxResultChars: 100,
    };
    const r = await resultOf(t);
    expect(r.content[0]).toEqual({ type: "text", text: "y".repeat(100) });
  });
});

describe("capToolResult", () => {
  const logger = () => ({ warn: vi.fn(), error: vi.fn() });

  test("a result that fits is returned as it is, without a warning", () => {
    const block: ToolResultBlock = {
      type: "toolResult",
      toolUseId: "u",
      status: "success",
      content: [{ type: "text", text: "ok" }],
    };
    const log = logger();
    expect(capToolResult(block, 10, log)).toBe(block);
    expect(log.warn).not.toHaveBeenCalled();
  });

  test("images pass, an oversized structuredContent is dropped, surrogate pairs are never split", () => {
    const block: ToolResultBlock = {
      type: "toolResult",
      toolUseId: "u",
      status: "success",
      content: [
        { type: "text", text: "ab😀" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      structuredContent: { big: "z".repeat(50) },
    };
    const out = capToolResult(block, 3, logger());
    expect(out.content[0]).toEqual({ type: "text", text: "ab" });
    expect(out.content[1]).toEqual({ type: "image", data: "AAAA", mimeType: "image/png" });
    expect(out.structuredContent).toBeUndefined();
    expect(block.content).toHaveLength(2);
  });

  test("text and JSON within the cap, whatever the parts (property)", () => {
    const part = fc.oneof(
      fc.string({ maxLength: 400 }).map((text) => ({ type: "text" as const, text })),
      fc.jsonValue({ maxDepth: 2 }).map((json) => ({ type: "json" as const, json: json as never })),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), fc.integer({ min: 0, max: 600 }), (content, max) => {
        const block: ToolResultBlock = { type: "toolResult", toolUseId: "u", status: "success", content };
        const out = capToolResult(block, max, logger());
        const note = out === block ? 0 : (out.content.at(-1) as { text: string }).text.length;
        expect(chars(out) - note).toBeLessThanOrEqual(max);
        if (chars(block) <= max) expect(out).toBe(block);
      }),
    );
  });
});
