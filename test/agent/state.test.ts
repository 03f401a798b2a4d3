import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  AgentState,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  ScriptedModel,
  tool,
  UserError,
  type HookProvider,
  type HookRegistry,
  type JsonValue,
  type Message,
} from "../../src/index.js";
import { deferred, echoTool } from "./helpers.js";

describe("AgentState", () => {
  test("stores copies of JSON values", () => {
    const s = new AgentState({ a: 1 });
    const v = { items: [1, 2] };
    s.set("cart", v);
    v.items.push(3);
    expect(s.get("cart")).toEqual({ items: [1, 2] });
    const out = s.get<{ items: number[] }>("cart")!;
    out.items.push(9);
    expect(s.get("cart")).toEqual({ items: [1, 2] });
    expect(s.keys().sort()).toEqual(["a", "cart"]);
    s.delete("a");
    expect(s.toJSON()).toEqual({ cart: { items: [1, 2] } });
    expect(JSON.parse(JSON.stringify(s))).toEqual({ cart: { items: [1, 2] } });
  });
  test("__proto__ is a plain key", () => {
    const s = new AgentState();
    s.set("__proto__", { polluted: true });
    expect(s.get("__proto__")).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  test.each<[string, unknown]>([
    ["a function", () => 1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a Date", new Date(0)],
    ["a Map", new Map()],
    [
      "a class instance",
      new (class Foo {
        x = 1;
      })(),
    ],
    ["undefined inside an object", { a: undefined }],
    ["a cycle", cyclic],
    ["a bigint", 1n],
    ["an array with a hole", [1, undefined, 3]],
  ])("rejects %s", (_label, value) => {
    const s = new AgentState();
    expect(() => s.set("k", value as JsonValue)).toThrow(UserError);
    expect(s.get("k")).toBeUndefined();
  });
  test("the constructor rejects non-JSON too", () => {
    expect(() => new AgentState({ f: (() => 1) as unknown as JsonValue })).toThrow(UserError);
  });
});

describe("model-input middleware", () => {
  test("rewrites only the copy sent to the model, in order", async () => {
    let sent: Message[] = [];
    let sentPrompt: string | undefined;
    const model = new ScriptedModel({
      script: (req) => {
        sent = req.messages;
        sentPrompt = req.systemPrompt;
        return { text: "ok" };
      },
    });
    const agent = new Agent({ model, systemPrompt: "base" });
    const order: string[] = [];
    agent.modelInput.use((input, ctx) => {
      order.push(`first:${ctx.callIndex}`);
      return {
        ...input,
        messages: [...input.messages, { role: "user", content: [{ type: "text", text: "[A]" }] }],
        systemPrompt: `${input.systemPrompt}+A`,
      };
    });
    const off = agent.modelInput.use(async (input) => {
      order.push("second");
      // Middleware copies what it changes (the messages it gets are the transcript's own objects).
      const messages = input.messages.map((m) => ({
        ...m,
        content: m.content.map((b) => (b.type === "text" ? { ...b, text: b.text.toUpperCase() } : b)),
      }));
      return { ...input, messages, systemPrompt: `${input.systemPrompt}+B` };
    });
    await agent.invoke("hello");
    expect(order).toEqual(["first:0", "second"]);
    expect(sentPrompt).toBe("base+A+B");
    expect(sent.map((m) => m.content)).toEqual([[{ type: "text", text: "HELLO" }], [{ type: "text", text: "[A]" }]]);
    // Dropping or appending messages in the copy never changes the transcript array.
    expect(agent.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hello" }] },
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
    ]);
    expect(agent.systemPrompt).toBe("base");
    off();
    expect(agent.modelInput.size).toBe(1);
  });
});

describe("metrics", () => {
  test("cycles, summed usage and per-tool counts", async () => {
    const a = echoTool("a");
    const bad = tool({
      name: "bad",
      description: "",
      inputSchema: z.object({}),
      callback: () => {
        throw new Error("x");
      },
    });
    const model = new ScriptedModel({
      script: [
        {
          toolCalls: [{ name: "a", input: { x: 1 } }, { name: "bad" }],
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        },
        {
          toolCalls: [{ name: "a", input: { x: 2 } }],
          usage: { inputTokens: 20, outputTokens: 1, totalTokens: 21, cacheReadInputTokens: 4 },
        },
        { text: "done", usage: { inputTokens: 30, outputTokens: 2, totalTokens: 32 } },
      ],
    });
    const agent = new Agent({ model, tools: [a.tool, bad] });
    const r = await agent.invoke("go");
    expect(r.metrics.cycles).toBe(3);
    expect(r.metrics.modelCalls).toBe(3);
    expect(r.metrics.usage).toEqual({ inputTokens: 60, outputTokens: 8, totalTokens: 68, cacheReadInputTokens: 4 });
    expect(r.metrics.modelLatencyMs).toHaveLength(3);
    expect(r.metrics.tools.a).toMatchObject({ calls: 2, successes: 2, errors: 0 });
    expect(r.metrics.tools.bad).toMatchObject({ calls: 1, successes: 0, errors: 1 });
    expect(r.metrics.tools.a!.totalMs).toBeGreaterThanOrEqual(0);
    expect(r.metrics.durationMs).toBeGreaterThanOrEqual(0);
    // Each invocation has its own metrics.
    agent.model = new ScriptedModel({
      script: [{ text: "again", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }],
    });
    const r2 = await agent.invoke("more");
    expect(r2.metrics.usage.totalTokens).toBe(2);
    expect(r2.metrics.tools).toEqual({});
  });
});

describe("concurrency", () => {
  test("a second invoke while running → UserError; the first run is unaffected", async () => {
    const gate = deferred();
    const model = new ScriptedModel({
      script: [
        async () => {
          await gate.promise;
          return { text: "first" };
        },
      ],
    });
    const agent = new Agent({ model });
    const first = agent.invoke("one");
    await Promise.resolve();
    expect(agent.running).toBe(true);
    await expect(agent.invoke("two")).rejects.toBeInstanceOf(UserError);
    gate.resolve();
    const r = await first;
    expect(r.message.content).toEqual([{ type: "text", text: "first" }]);
    expect(agent.messages).toHaveLength(2);
    expect(agent.running).toBe(false);
  });

  test("two agents sharing one hook instance keep their invocationState apart", async () => {
    class RunTagger implements HookProvider {
      readonly seen: string[] = [];
      registerHooks(r: HookRegistry) {
        r.addCallback(BeforeInvocationEvent, (e) => void (e.invocationState.count = 0));
        r.addCallback(BeforeModelCallEvent, async (e) => {
          await new Promise((res) => setTimeout(res, 1));
          e.invocationState.count = (e.invocationState.count as number) + 1;
        });
        r.addCallback(
          BeforeToolCallEvent,
          (e) =>
            void this.seen.push(
              `${String(e.invocationState.runId)}:${String(e.invocationState.count)}:${e.agent.name}`,
            ),
        );
      }
    }
    const shared = new RunTagger();
    const mk = (name: string, rounds: number) => {
      const { tool: t } = echoTool();
      const script = [
        ...Array.from({ length: rounds }, (_, i) => ({ toolCalls: [{ name: "echo", input: { x: i } }] })),
        { text: "end" },
      ];
      return new Agent({ name, model: new ScriptedModel({ script }), tools: [t], hooks: [shared] });
    };
    const s1: Record<string, unknown> = { runId: "r1" };
    const s2: Record<string, unknown> = { runId: "r2" };
    await Promise.all([
      mk("one", 3).invoke("go", { invocationState: s1 }),
      mk("two", 1).invoke("go", { invocationState: s2 }),
    ]);
    expect(s1.count).toBe(4);
    expect(s2.count).toBe(2);
    expect(shared.seen.filter((x) => x.startsWith("r1")).sort()).toEqual(["r1:1:one", "r1:2:one", "r1:3:one"]);
    expect(shared.seen.filter((x) => x.startsWith("r2"))).toEqual(["r2:1:two"]);
  });
});

describe("invoke input", () => {
  test("arrays must be all messages or all content blocks; anything else is a UserError before any hook runs", async () => {
    const { UserError } = await import("../../src/index.js");
    const agent = new Agent({ model: new ScriptedModel({ script: () => ({ text: "ok" }) }) });
    let started = 0;
    agent.hooks.addCallback(BeforeInvocationEvent, () => void started++);
    for (const bad of [
      [{ role: "user", content: "x" }],
      [
        { type: "text", text: "a" },
        { role: "user", content: [] },
      ],
      [{ type: "mystery" }],
      [null],
      [42],
    ]) {
      await expect(agent.invoke(bad as never)).rejects.toBeInstanceOf(UserError);
    }
    expect(started).toBe(0);
    expect((await agent.invoke([{ type: "text", text: "a" }])).stopReason).toBe("endTurn");
    expect((await agent.invoke([{ role: "user", content: [{ type: "text", text: "b" }] }])).stopReason).toBe("endTurn");
  });

  test("BeforeInvocationEvent carries the new messages (none on a resume)", async () => {
    const agent = new Agent({ model: new ScriptedModel({ script: () => ({ text: "ok" }) }) });
    const seen: unknown[] = [];
    agent.hooks.addCallback(BeforeInvocationEvent, (e) => void seen.push(e.messages));
    await agent.invoke("hi");
    await agent.invoke();
    expect(seen).toEqual([[{ role: "user", content: [{ type: "text", text: "hi" }] }], []]);
  });
});
