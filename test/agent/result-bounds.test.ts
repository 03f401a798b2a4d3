/**
 * Depth and media bounds on results of any tool (not only MCP): a part that breaks a bound is
 * dropped with a note, the rest kept, and the status is the tool's own — never a crash of ours.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import * as z from "zod/v4";
import { ContextHook } from "../../src/hooks/context-hook.js";
import { Agent, capToolResult, tool, type AgentTool, type Message, type ToolResultBlock } from "../../src/index.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { expectConsistentTranscript } from "./helpers.js";

afterEach(() => vi.restoreAllMocks());

function deep(depth: number): unknown {
  let v: unknown = { amount: 5 };
  for (let i = 0; i < depth; i++) v = { next: v };
  return v;
}

async function resultOf(t: AgentTool): Promise<ToolResultBlock> {
  const model = new ScriptedModel({ script: [{ toolCalls: [{ name: t.name, input: {} }] }, { text: "ok" }] });
  const agent = new Agent({ model, tools: [t] });
  await agent.invoke("go");
  expectConsistentTranscript(agent.messages);
  return agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"))[0]!;
}
const textOf = (r: ToolResultBlock) => r.content.map((p) => (p.type === "text" ? p.text : `<${p.type}>`)).join("\n");
const quiet = () => vi.spyOn(console, "warn").mockImplementation(() => undefined);

describe("results of function tools", () => {
  test("a callback returning a 100,000-deep object ran: a success with a note, not a stack overflow", async () => {
    quiet();
    let runs = 0;
    const t = tool({
      name: "deep",
      description: "",
      inputSchema: z.object({}),
      callback: () => {
        runs++;
        return deep(100_000);
      },
    });
    const r = await resultOf(t);
    expect(runs).toBe(1);
    expect(r.status).toBe("success");
    expect(textOf(r)).toMatch(/nested deeper than 64 levels/);
    expect(textOf(r)).not.toMatch(/call stack/);
  });

  test("a ToolOutput with a deep JSON part and a deep structuredContent keeps its text and its error status", async () => {
    quiet();
    const t: AgentTool = {
      name: "charge",
      spec: { name: "charge", description: "", inputSchema: { type: "object" } },
      call: async () => ({
        status: "error",
        content: [
          { type: "text", text: "declined" },
          { type: "json", json: deep(5_000) as never },
          { type: "text", text: "ref 7" },
        ],
        structuredContent: deep(5_000) as never,
      }),
    };
    const r = await resultOf(t);
    expect(r.status).toBe("error");
    expect(r.structuredContent).toBeUndefined();
    expect(r.content.slice(0, 2)).toEqual([
      { type: "text", text: "declined" },
      { type: "text", text: "ref 7" },
    ]);
    expect(textOf(r)).toMatch(
      /\[1 JSON parts nested deeper than 64 levels dropped; the structured result was nested deeper/,
    );
  });

  test("a result our code cannot read at all keeps its readable text and its status", () => {
    const log = { warn: vi.fn(), error: vi.fn() };
    const block = {
      type: "toolResult",
      toolUseId: "c1",
      status: "success",
      content: [
        { type: "text", text: "charged $5" },
        { type: "text", text: 42 },
      ],
    } as unknown as ToolResultBlock;
    const out = capToolResult(block, {}, log);
    expect(out.status).toBe("success");
    expect(out.content[0]).toEqual({ type: "text", text: "charged $5" });
    expect(textOf(out)).toMatch(/could not be read/);
  });

  test("media per result: a tool can lower its own bound", async () => {
    quiet();
    const t = {
      ...tool({
        name: "shots",
        description: "",
        inputSchema: z.object({}),
        callback: () => ({
          status: "success" as const,
          content: Array.from({ length: 5 }, () => ({
            type: "image" as const,
            data: "A".repeat(4000),
            mimeType: "image/png",
          })),
        }),
      }),
      maxResultMediaBytes: 7000,
    };
    const r = await resultOf(t);
    expect(r.content.filter((p) => p.type === "image")).toHaveLength(2);
    expect(textOf(r)).toMatch(/\[3 images or documents \(9000 bytes\) dropped: one result carries at most 7000 bytes/);
  });
});

describe("ContextHook clears old media like old text", () => {
  test("past the trigger, old image results become placeholders in the model input; the newest stay", async () => {
    const image = { type: "image" as const, data: "A".repeat(40_000), mimeType: "image/png" };
    const shot = tool({
      name: "shot",
      description: "",
      inputSchema: z.object({}),
      callback: () => ({ status: "success" as const, content: [image] }),
    });
    const sent: Message[][] = [];
    let n = 0;
    const model = new ScriptedModel({
      script: ({ messages }) => {
        sent.push(messages);
        return ++n <= 4 ? { toolCalls: [{ name: "shot", input: {} }] } : { text: "ok" };
      },
    });
    const agent = new Agent({ model, tools: [shot], hooks: [new ContextHook({ clearTrigger: 20_000, keepLast: 1 })] });
    await agent.invoke("go");
    const last = sent.at(-1)!;
    const results = last.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
    expect(results).toHaveLength(4);
    expect(results.slice(0, 3).every((r) => /cleared to save context/.test(textOf(r)))).toBe(true);
    expect(results[3]?.content).toEqual([image]);
  });
});
