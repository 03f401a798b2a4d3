import fc from "fast-check";
import jsonpatch from "fast-json-patch";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, BeforeToolCallEvent, ScriptedModel, tool, type AgentTool, type HookProvider } from "../../src/index.js";
import { capturingLogger } from "../fixtures/logger.js";
import { RUN_ID_KEY, SHARED_STATE_KEY } from "../../src/agent/run-context.js";
import {
  STATE_EFFECTS_KEY,
  StateEffectsHook,
  stateDeltas,
  type StateDelta,
  type StateEffect,
  type StateEffectCall,
} from "../../src/hooks/state-effects.js";

const addItem = tool({
  name: "cart_add",
  description: "adds",
  inputSchema: z.object({ sku: z.string() }),
  callback: ({ sku }) => JSON.stringify({ added: sku, total: 2 }),
});
const plain = tool({ name: "say", description: "text", inputSchema: z.object({}), callback: () => "not json at all" });
const failing = tool({
  name: "cart_fail",
  description: "fails",
  inputSchema: z.object({}),
  callback: () => {
    throw new Error("boom");
  },
});
const errorStatus = tool({
  name: "cart_err",
  description: "error result",
  inputSchema: z.object({}),
  callback: () => ({ status: "error", content: [{ type: "text", text: "{}" }] }),
});

async function run(
  effects: unknown,
  calls: { name: string; input?: unknown }[],
  options: {
    state?: unknown;
    tools?: AgentTool[];
    hook?: HookProvider;
    extra?: Record<string, unknown>;
    agentConfig?: object;
  } = {},
) {
  const logger = capturingLogger();
  const invocationState: Record<string, unknown> = {
    [STATE_EFFECTS_KEY]: effects,
    [RUN_ID_KEY]: "run-1",
    ...options.extra,
  };
  if (options.state !== undefined) invocationState[SHARED_STATE_KEY] = options.state;
  const agent = new Agent({
    name: "shopper",
    model: new ScriptedModel({ script: [{ toolCalls: calls }, { text: "done" }] }),
    tools: options.tools ?? [addItem, plain, failing, errorStatus],
    hooks: [options.hook ?? new StateEffectsHook({ logger })],
    toolExecutor: "sequential",
    ...options.agentConfig,
  });
  await agent.invoke("go", { invocationState });
  return { invocationState, logger, state: invocationState[SHARED_STATE_KEY], deltas: stateDeltas(invocationState) };
}

describe("StateEffectsHook", () => {
  test("a mapper gets the call, parsed result, agent, run id and state; a patch applies and is emitted", async () => {
    const seen: StateEffectCall[] = [];
    const effects: StateEffect[] = [
      {
        tool: "cart_*",
        map: (call) => (seen.push(call), [{ op: "add", path: "/cart/-", value: (call.input as { sku: string }).sku }]),
      },
    ];
    const initial = { cart: ["milk"] };
    const { state, deltas } = await run(effects, [{ name: "cart_add", input: { sku: "eggs" } }], { state: initial });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      tool: "cart_add",
      input: { sku: "eggs" },
      result: { added: "eggs", total: 2 },
      agent: "shopper",
      runId: "run-1",
      state: { cart: ["milk"] },
    });
    expect(state).toEqual({ cart: ["milk", "eggs"] });
    expect(initial).toEqual({ cart: ["milk"] });
    expect(deltas).toEqual([
      {
        tool: "cart_add",
        toolUseId: expect.any(String),
        agent: "shopper",
        ops: [{ op: "add", path: "/cart/-", value: "eggs" }],
      },
    ]);
  });

  test("effects apply in order, each seeing the previous result; a partial object merges shallowly and emits one op per top-level key", async () => {
    const states: unknown[] = [];
    const delivered: StateDelta[] = [];
    const effects: StateEffect[] = [
      { tool: "cart_add", map: ({ state }) => (states.push(state), { count: 1, meta: { by: "first" } }) },
      {
        tool: "cart_add",
        map: ({ state }) => (
          states.push(state), [{ op: "replace", path: "/count", value: (state.count as number) + 1 }]
        ),
      },
      { tool: "other", map: () => ({ never: true }) },
    ];
    const { state, deltas } = await run(
      { effects, onDelta: (d: StateDelta) => delivered.push(d) },
      [{ name: "cart_add", input: { sku: "a" } }],
      { state: { meta: { keep: 1, by: "x" }, other: true } },
    );
    expect(states).toEqual([
      { meta: { keep: 1, by: "x" }, other: true },
      { meta: { by: "first" }, other: true, count: 1 },
    ]);
    expect(state).toEqual({ meta: { by: "first" }, other: true, count: 2 });
    expect(deltas.map((d) => d.ops)).toEqual([
      [
        { op: "add", path: "/count", value: 1 },
        { op: "replace", path: "/meta", value: { by: "first" } },
      ],
      [{ op: "replace", path: "/count", value: 2 }],
    ]);
    expect(delivered).toEqual(deltas);
  });

  test.each([
    ["a tool that throws", "cart_fail"],
    ["a tool with an error result", "cart_err"],
  ])("%s: no effect applies", async (_n, name) => {
    let called = 0;
    const { state, deltas } = await run([{ tool: "cart_*", map: () => (called++, { changed: true }) }], [{ name }], {
      state: { a: 1 },
    });
    expect(called).toBe(0);
    expect(state).toEqual({ a: 1 });
    expect(deltas).toEqual([]);
  });

  test("a cancelled call: no effect applies", async () => {
    let called = 0;
    const hook = new StateEffectsHook();
    const { state } = await run([{ tool: "*", map: () => (called++, { changed: true }) }], [{ name: "say" }], {
      state: { a: 1 },
      hook: {
        registerHooks: (r) => {
          r.addCallback(BeforeToolCallEvent, (e) => void (e.cancel = "no"));
          hook.registerHooks(r);
        },
      },
    });
    expect(called).toBe(0);
    expect(state).toEqual({ a: 1 });
  });

  test("text that is not JSON reaches the mapper as text; JSON parts as their value; structuredContent wins", async () => {
    const results: unknown[] = [];
    const json = tool({ name: "js", description: "json", inputSchema: z.object({}), callback: () => ({ n: 1 }) });
    const structured: AgentTool = {
      ...json,
      name: "st",
      spec: { ...json.spec, name: "st" },
      call: async () => ({ status: "success", content: [{ type: "text", text: "x" }], structuredContent: { s: true } }),
    };
    await run(
      [{ tool: "*", map: ({ result }: StateEffectCall) => void results.push(result) }],
      [{ name: "say" }, { name: "js" }, { name: "st" }],
      { tools: [plain, json, structured] },
    );
    expect(results).toEqual(["not json at all", { n: 1 }, { s: true }]);
  });

  test.each([
    [
      "throws",
      () => {
        throw new Error("mapper bug");
      },
      /threw: mapper bug/,
    ],
    ["returns garbage (a string)", () => "set it", /must return/],
    ["returns a number", () => 42, /must return/],
    ["returns an object with a function", () => ({ f: () => 1 }), /must return/],
    ["returns ops with a bad op", () => [{ op: "frobnicate", path: "/a" }], /not a JSON Patch/],
    ["returns ops on a missing path", () => [{ op: "replace", path: "/missing/deep", value: 1 }], /invalid JSON Patch/],
    [
      "returns a failing test op",
      () => [
        { op: "replace", path: "/a", value: 9 },
        { op: "test", path: "/a", value: 1 },
      ],
      /invalid JSON Patch/,
    ],
    ["replaces the root with a number", () => [{ op: "replace", path: "", value: 3 }], /JSON object/],
    ["returns a promise", async () => ({ a: 2 }), /promise/],
    [
      "mutates the state it was given",
      ({ state }: StateEffectCall) => {
        (state as { a: number }).a = 99;
        return null;
      },
      /threw/,
    ],
    [
      "mutates nested input",
      ({ state }: StateEffectCall) => {
        (state.nested as number[]).push(1);
        return null;
      },
      /threw/,
    ],
  ])("a mapper that %s is logged and leaves the state untouched; later effects still apply", async (_n, map, why) => {
    const initial = { a: 1, nested: [0] };
    const { state, deltas, logger } = await run(
      [
        { tool: "say", map },
        { tool: "say", map: ({ state }: StateEffectCall) => ({ after: state.a }) },
      ],
      [{ name: "say" }],
      { state: initial },
    );
    expect(logger.warns.join("\n")).toMatch(why);
    expect(initial).toEqual({ a: 1, nested: [0] });
    expect(state).toEqual({ a: 1, nested: [0], after: 1 });
    expect(deltas).toHaveLength(1);
  });

  test("malformed rules and configs are logged and skipped; a non-object shared state starts from {}", async () => {
    const { state, logger } = await run(
      [{ tool: 5, map: () => ({}) }, { tool: "say" }, null, { tool: "say", map: () => ({ ok: true }) }],
      [{ name: "say" }],
      { state: "not an object" },
    );
    expect(logger.warns.join("\n")).toMatch(/skipped 3 malformed/);
    expect(logger.warns.join("\n")).toMatch(/not a JSON object/);
    expect(state).toEqual({ ok: true });
    const bad = await run({ effects: "nope" }, [{ name: "say" }], { state: { a: 1 } });
    expect(bad.logger.warns.join()).toMatch(/ignored/);
    expect(bad.state).toEqual({ a: 1 });
  });

  test("no effects, no state: nothing happens; agentName overrides the agent's name", async () => {
    const none = await run(undefined, [{ name: "say" }]);
    expect(none.state).toBeUndefined();
    const agents: string[] = [];
    await run([{ tool: "say", map: ({ agent }: StateEffectCall) => void agents.push(agent) }], [{ name: "say" }], {
      hook: new StateEffectsHook({ agentName: "checkout" }),
    });
    expect(agents).toEqual(["checkout"]);
  });

  test("a throwing onDelta listener is logged; the state still changes", async () => {
    const { state, logger } = await run(
      {
        effects: [{ tool: "say", map: () => ({ x: 1 }) }],
        onDelta: () => {
          throw new Error("socket closed");
        },
      },
      [{ name: "say" }],
    );
    expect(state).toEqual({ x: 1 });
    expect(logger.warns.join()).toMatch(/onDelta/);
  });

  test("concurrent runs sharing one hook instance and concurrent calls within a run: no cross-talk, no lost update", async () => {
    const hook = new StateEffectsHook();
    const effects: StateEffect[] = [
      {
        tool: "cart_add",
        map: ({ input, state }) => ({ items: [...((state.items as string[]) ?? []), (input as { sku: string }).sku] }),
      },
    ];
    const calls = (who: string) => ["1", "2", "3"].map((n) => ({ name: "cart_add", input: { sku: `${who}${n}` } }));
    const [a, b] = await Promise.all([
      run(effects, calls("a"), { hook, agentConfig: { toolExecutor: "concurrent" } }),
      run(effects, calls("b"), { hook, agentConfig: { toolExecutor: "concurrent" } }),
    ]);
    expect((a.state as { items: string[] }).items.sort()).toEqual(["a1", "a2", "a3"]);
    expect((b.state as { items: string[] }).items.sort()).toEqual(["b1", "b2", "b3"]);
  });

  test("property: emitted ops replayed on the initial state give the final state", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
        fc.array(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })), {
          minLength: 1,
          maxLength: 4,
        }),
        async (initial, partials) => {
          const start = JSON.parse(JSON.stringify(initial));
          const effects = partials.map((p) => ({ tool: "say", map: () => JSON.parse(JSON.stringify(p)) }));
          const { state, deltas } = await run(effects, [{ name: "say" }], { state: structuredClone(start) });
          const replay = deltas.reduce(
            (doc, d) => jsonpatch.applyPatch(doc, structuredClone(d.ops), true, false).newDocument,
            structuredClone(start),
          );
          expect(replay).toEqual(state);
        },
      ),
      { numRuns: 60, examples: [[{ "": { ["__proto__"]: false } }, [{ "": {} }]]] },
    );
  });
});
