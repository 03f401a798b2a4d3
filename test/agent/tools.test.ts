import { describe, expect, expectTypeOf, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  AfterToolCallEvent,
  BeforeToolCallEvent,
  ScriptedModel,
  tool,
  ToolDefinitionError,
  type AgentTool,
  type ToolContext,
  type ToolResultBlock,
} from "../../src/index.js";
import { deferred, echoTool, expectConsistentTranscript } from "./helpers.js";

function lastResults(agent: Agent): ToolResultBlock[] {
  const m = agent.messages.findLast((x) => x.content.some((b) => b.type === "toolResult"));
  return (m?.content ?? []).filter((b): b is ToolResultBlock => b.type === "toolResult");
}
const text = (r: ToolResultBlock | undefined) =>
  r?.content.map((c) => (c.type === "text" ? c.text : JSON.stringify(c))).join("") ?? "";

describe("tool()", () => {
  test("builds the JSON Schema spec from zod and keeps annotations", async () => {
    const t = tool({
      name: "get_weather",
      description: "Weather for a city.",
      inputSchema: z.object({ city: z.string().describe("City name"), days: z.number().int().min(1).optional() }),
      annotations: { readOnlyHint: true, destructiveHint: false },
      callback: () => "sunny",
    });
    expect(t.name).toBe("get_weather");
    expect(t.kind).toBe("function");
    expect(t.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(t.spec.name).toBe("get_weather");
    expect(t.spec.description).toBe("Weather for a city.");
    await new Agent({ model: new ScriptedModel({ script: [] }), tools: [t] }).prepareTools();
    const s = t.spec.inputSchema as Record<string, any>;
    expect(s.type).toBe("object");
    expect(s.$schema).toBeUndefined();
    expect(s.required).toEqual(["city"]);
    expect(s.properties.city).toEqual({ type: "string", description: "City name" });
    expect(s.properties.days.type).toBe("integer");
    expect(s.properties.days.minimum).toBe(1);
  });
  test("rejects bad names and non-object schemas", () => {
    expect(() => tool({ name: "bad name", description: "", inputSchema: z.object({}), callback: () => "" })).toThrow(
      ToolDefinitionError,
    );
    expect(() => tool({ name: "s", description: "", inputSchema: z.string(), callback: () => "" })).toThrow(
      ToolDefinitionError,
    );
  });
  test("duplicate tool names are refused", () => {
    const { tool: t } = echoTool();
    expect(() => new Agent({ model: new ScriptedModel({ script: [] }), tools: [t, t] })).toThrow(ToolDefinitionError);
  });
  test("types: the callback's input is inferred from the schema", () => {
    tool({
      name: "t",
      description: "",
      inputSchema: z.object({ a: z.string(), n: z.number().optional() }),
      callback: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ a: string; n?: number | undefined }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return input.a;
      },
    });
    expectTypeOf(tool).returns.toEqualTypeOf<AgentTool>();
  });
  test("return values: string → text, object → json, undefined → empty, ToolOutput passes through", async () => {
    const mk = (name: string, v: unknown) =>
      tool({ name, description: "", inputSchema: z.object({}), callback: () => v });
    const tools = [
      mk("s", "hello"),
      mk("o", { a: 1, d: undefined }),
      mk("u", undefined),
      mk("p", { status: "error", content: [{ type: "text", text: "custom" }] }),
    ];
    const model = new ScriptedModel({
      script: [{ toolCalls: tools.map((t) => ({ name: t.name, id: t.name })) }, { text: "ok" }],
    });
    const agent = new Agent({ model, tools });
    await agent.invoke("go");
    const byId = new Map(lastResults(agent).map((r) => [r.toolUseId, r]));
    expect(byId.get("s")).toMatchObject({ status: "success", content: [{ type: "text", text: "hello" }] });
    expect(byId.get("o")).toMatchObject({ status: "success", content: [{ type: "json", json: { a: 1 } }] });
    expect(byId.get("u")).toMatchObject({ status: "success", content: [] });
    expect(byId.get("p")).toMatchObject({ status: "error", content: [{ type: "text", text: "custom" }] });
  });
});

describe("bad calls become error results the model reads", () => {
  test("invalid input: callback not called, the model's next request carries the zod message", async () => {
    const { tool: t, calls } = echoTool();
    let seen: ToolResultBlock[] = [];
    const model = new ScriptedModel({
      script: [
        { toolCalls: [{ name: "echo", input: { x: "not a number" }, id: "c1" }] },
        (req) => {
          seen = req.lastToolResults;
          return { text: "sorry" };
        },
      ],
    });
    const agent = new Agent({ model, tools: [t] });
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("endTurn");
    expect(calls).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.status).toBe("error");
    expect(text(seen[0])).toMatch(/Invalid input for tool "echo"/);
    expect(text(seen[0])).toMatch(/x/);
    expect(r.metrics.tools.echo).toMatchObject({ calls: 1, errors: 1, successes: 0 });
  });
  test("a tool that throws → error result with its message", async () => {
    const t = tool({
      name: "boom",
      description: "",
      inputSchema: z.object({}),
      callback: () => {
        throw new Error("disk full");
      },
    });
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "boom" }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: [t] });
    let afterError: unknown;
    agent.hooks.addCallback(AfterToolCallEvent, (e) => void (afterError = e.error));
    await agent.invoke("go");
    const [res] = lastResults(agent);
    expect(res!.status).toBe("error");
    expect(text(res)).toContain("disk full");
    expect((afterError as Error).message).toBe("disk full");
  });
  test("non-JSON arguments → error result, callback not called", async () => {
    const { tool: t, calls } = echoTool();
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "echo", rawInput: "{bad" }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: [t] });
    await agent.invoke("go");
    const [res] = lastResults(agent);
    expect(res!.status).toBe("error");
    expect(text(res)).toMatch(/not valid JSON/);
    expect(calls).toEqual([]);
    expectConsistentTranscript(agent.messages);
  });
  test("unknown tool name → error result listing the tools", async () => {
    const a = echoTool("alpha");
    const b = echoTool("beta");
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "gamma", input: { x: 1 } }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: [a.tool, b.tool] });
    let selected: unknown = "unset";
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => void (selected = e.selectedTool));
    await agent.invoke("go");
    const [res] = lastResults(agent);
    expect(selected).toBeUndefined();
    expect(res!.status).toBe("error");
    expect(text(res)).toContain('Unknown tool "gamma"');
    expect(text(res)).toContain("alpha, beta");
  });
});

describe("executors", () => {
  function tracked(names: string[], concurrent = false) {
    let active = 0;
    let maxActive = 0;
    const gates = new Map(names.map((n) => [n, deferred()]));
    const allStarted = deferred();
    const tools = names.map((n) =>
      tool({
        name: n,
        description: "",
        inputSchema: z.object({}),
        callback: async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          // Concurrent calls wait for each other to start (each starts once its ledger claim is in,
          // so a fixed pause would race with the claims); sequential ones just yield.
          if (active === names.length) allStarted.resolve();
          await (concurrent ? allStarted.promise : new Promise((r) => setTimeout(r, 1)));
          await gates.get(n)!.promise;
          active--;
          return n;
        },
      }),
    );
    return { tools, gates, max: () => maxActive };
  }
  for (const executor of ["concurrent", "sequential"] as const) {
    test(`${executor}: overlap and per-tool Before/After order`, async () => {
      const names = ["a", "b", "c"];
      const { tools, gates, max } = tracked(names, executor === "concurrent");
      for (const g of gates.values()) g.resolve();
      const model = new ScriptedModel({
        script: [{ toolCalls: names.map((n) => ({ name: n, id: n })) }, { text: "ok" }],
      });
      const agent = new Agent({ model, tools, toolExecutor: executor });
      const log: string[] = [];
      agent.hooks.addCallback(BeforeToolCallEvent, (e) => void log.push(`B:${e.toolUse.name}`));
      agent.hooks.addCallback(AfterToolCallEvent, (e) => void log.push(`A:${e.toolUse.name}`));
      await agent.invoke("go");
      if (executor === "sequential") {
        expect(max()).toBe(1);
        expect(log).toEqual(["B:a", "A:a", "B:b", "A:b", "B:c", "A:c"]);
      } else {
        expect(max()).toBe(3);
      }
      for (const n of names) expect(log.indexOf(`B:${n}`)).toBeLessThan(log.indexOf(`A:${n}`));
      // Results are in call order, whatever order they finished in.
      expect(lastResults(agent).map((r) => r.toolUseId)).toEqual(names);
      expectConsistentTranscript(agent.messages);
    });
  }
});
