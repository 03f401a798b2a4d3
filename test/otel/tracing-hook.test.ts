// TracingHook with the real OpenTelemetry trace SDK: the span tree, names and GenAI attributes of a run, a
// failed model call, content only when enabled, an incoming traceparent, and the orchestrators' node spans.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, test } from "vitest";
import { Agent, ScriptedModel } from "../../src/index.js";
import { Graph, Swarm, agentAsTool } from "../../src/multiagent/index.js";
import { parentFromTraceparent } from "../../src/otel/index.js";
import * as z from "zod/v4";
import { tool } from "../../src/index.js";
import { keysStarting, tracing } from "./trace-fixtures.js";

const usage = (i: number, o: number) => ({ inputTokens: i, outputTokens: o, totalTokens: i + o });

const balance = () =>
  tool({
    name: "balance",
    description: "Reads the balance.",
    inputSchema: z.object({}),
    callback: () => ({ balance: 100 }),
  });
const transfer = () =>
  tool({
    name: "transfer",
    description: "Sends money.",
    inputSchema: z.object({ to: z.string() }),
    callback: () => "sent",
  });

function oneToolRun(hooks: ReturnType<typeof tracing>["hook"][]) {
  const model = new ScriptedModel({
    ids: "sequential",
    modelId: "scripted-1",
    script: [
      { toolCalls: [{ name: "balance", input: {} }], usage: usage(10, 3) },
      { text: "You have 100.", usage: usage(20, 5) },
    ],
  });
  return { agent: new Agent({ name: "bank", model, tools: [balance()], hooks, systemPrompt: "Be brief." }) };
}

describe("a run as GenAI spans", () => {
  test("invoke_agent holds a chat span per model call and an execute_tool span per call, with the conventions' attributes", async () => {
    const t = tracing();
    const { agent } = oneToolRun([t.hook]);
    await agent.invoke("balance?", { invocationState: { threadId: "t1", runId: "r1" } });
    expect(t.tree()).toEqual([
      "chat scripted-1 < invoke_agent bank",
      "execute_tool balance < invoke_agent bank",
      "chat scripted-1 < invoke_agent bank",
      "invoke_agent bank < root",
    ]);
    const run = t.one("invoke_agent bank");
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "bank",
      "gen_ai.conversation.id": "t1",
      "gen_ai.request.model": "scripted-1",
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 8,
      "kaboo.run.id": "r1",
      "kaboo.run.stop_reason": "endTurn",
      "kaboo.run.resuming": false,
    });
    const [first, second] = t.spans().filter((s) => s.name === "chat scripted-1");
    expect(first?.kind).toBe(SpanKind.CLIENT);
    expect(first?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "scripted-1",
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 3,
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });
    expect(second?.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(t.one("execute_tool balance").attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "balance",
      "gen_ai.tool.call.id": "call_1",
      "gen_ai.tool.type": "function",
      // Every call the ledger claims says how it answered, gated or not.
      "kaboo.ledger.answer": "ran",
    });
    expect(t.spans().every((s) => s.status.code === SpanStatusCode.UNSET)).toBe(true);
  });

  test("no prompt, answer, argument or result is recorded unless captureContent is on", async () => {
    const off = tracing();
    await oneToolRun([off.hook]).agent.invoke("balance?");
    const contentKeys = [
      "gen_ai.input.messages",
      "gen_ai.output.messages",
      "gen_ai.system_instructions",
      "gen_ai.tool.call.arguments",
      "gen_ai.tool.call.result",
    ];
    expect(keysStarting(off.spans(), "gen_ai.").filter((k) => contentKeys.includes(k))).toEqual([]);
    expect(JSON.stringify(off.spans().map((s) => s.attributes))).not.toMatch(/balance\?|Be brief|100/);

    const on = tracing({ captureContent: true });
    await oneToolRun([on.hook]).agent.invoke("balance?");
    const [chat] = on.spans().filter((s) => s.name === "chat scripted-1");
    expect(JSON.parse(chat?.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: "balance?" }] },
    ]);
    expect(JSON.parse(chat?.attributes["gen_ai.system_instructions"] as string)).toEqual([
      { type: "text", content: "Be brief." },
    ]);
    expect(JSON.parse(chat?.attributes["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [{ type: "tool_call", id: "call_1", name: "balance", arguments: {} }],
        finish_reason: "tool_calls",
      },
    ]);
    const call = on.one("execute_tool balance").attributes;
    expect(call["gen_ai.tool.call.arguments"]).toBe("{}");
    expect(JSON.parse(call["gen_ai.tool.call.result"] as string)).toEqual([{ balance: 100 }]);
  });

  test("a failed model call: its chat span and the run's span end in ERROR with error.type", async () => {
    const t = tracing();
    const model = new ScriptedModel({ modelId: "m", script: [{ error: new TypeError("upstream 500") }] });
    const agent = new Agent({ name: "a", model, hooks: [t.hook], maxModelRetries: 0 });
    await expect(agent.invoke("hi")).rejects.toThrow();
    const chat = t.one("chat m");
    expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: "upstream 500" });
    expect(chat.attributes["error.type"]).toBe("TypeError");
    expect(chat.events.map((e) => e.name)).toEqual(["exception"]);
    expect(t.one("invoke_agent a").status.code).toBe(SpanStatusCode.ERROR);
    expect(t.tree()).toEqual(["chat m < invoke_agent a", "invoke_agent a < root"]);
  });

  test("a retried model call is one chat span covering both attempts", async () => {
    const t = tracing();
    const model = new ScriptedModel({ modelId: "m", script: [{ error: new Error("busy") }, { text: "ok" }] });
    const agent = new Agent({ name: "a", model, hooks: [t.hook], maxModelRetries: 1 });
    agent.hooks.addCallback((await import("../../src/index.js")).AfterModelCallEvent, (e) => {
      if (e.error) e.retry = true;
    });
    await agent.invoke("hi");
    const chat = t.one("chat m");
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(chat.events.map((e) => e.name)).toEqual(["retry"]);
  });

  test("an incoming traceparent makes the run's span the request's child", async () => {
    const t = tracing({ parent: parentFromTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01") });
    await oneToolRun([t.hook]).agent.invoke("balance?");
    const run = t.one("invoke_agent bank");
    expect(run.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(run.parentSpanContext).toMatchObject({ spanId: "b7ad6b7169203331", isRemote: true });
    expect(t.spans().every((s) => s.spanContext().traceId === "0af7651916cd43dd8448eb211c80319c")).toBe(true);
  });

  test("malformed traceparents are refused (the run then starts its own trace)", () => {
    for (const bad of [
      undefined,
      "",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
      "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
    ])
      expect(parentFromTraceparent(bad)).toBeUndefined();
  });

  test("a graph: invoke_workflow, a node span per node, each node's run under its node", async () => {
    const t = tracing();
    const worker = (name: string) =>
      new Agent({
        name,
        model: new ScriptedModel({ modelId: "m", script: [{ text: `${name} done` }] }),
        hooks: [t.hook],
      });
    const graph = new Graph({
      name: "research",
      nodes: { a: worker("a"), b: worker("b") },
      edges: [{ from: "a", to: "b" }],
      hooks: [t.hook],
    });
    await graph.invoke("go", { invocationState: { threadId: "t9" } });
    expect(t.tree().sort()).toEqual(
      [
        "chat m < invoke_agent a",
        "chat m < invoke_agent b",
        "invoke_agent a < node a",
        "invoke_agent b < node b",
        "node a < invoke_workflow research",
        "node b < invoke_workflow research",
        "invoke_workflow research < root",
      ].sort(),
    );
    expect(t.one("invoke_workflow research").attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_workflow",
      "kaboo.workflow.type": "graph",
      "gen_ai.conversation.id": "t9",
    });
    expect(t.one("node b").attributes).toMatchObject({ "kaboo.node.id": "b", "kaboo.node.status": "completed" });
  });

  test("a swarm: a node span per agent turn, a repeated agent's second turn under its own node span", async () => {
    const t = tracing();
    const handoff = (to: string) => ({
      toolCalls: [{ name: "handoff_to_agent", input: { agent_name: to, message: "yours" } }],
    });
    const agent = (name: string, script: object[]) =>
      new Agent({ name, model: new ScriptedModel({ modelId: "m", script }), hooks: [t.hook] });
    const swarm = new Swarm({
      name: "desk",
      agents: [agent("a", [handoff("b"), { text: "a done" }]), agent("b", [handoff("a")])],
      hooks: [t.hook],
    });
    const r = await swarm.invoke("go");
    expect(r.status).toBe("completed");
    const nodes = t.spans().filter((s) => s.name.startsWith("node "));
    expect(nodes.map((s) => s.name)).toEqual(["node a", "node b", "node a"]);
    const runsOfA = t.spans().filter((s) => s.name === "invoke_agent a");
    expect(runsOfA.map((s) => s.parentSpanContext?.spanId)).toEqual(
      nodes.filter((s) => s.name === "node a").map((s) => s.spanContext().spanId),
    );
    expect(t.one("invoke_workflow desk").attributes["kaboo.workflow.type"]).toBe("swarm");
  });

  test("a delegate's run hangs under the execute_tool span of the call that delegated to it", async () => {
    const t = tracing();
    const helper = new Agent({
      name: "helper",
      model: new ScriptedModel({ modelId: "m", script: [{ text: "helped" }] }),
      hooks: [t.hook],
    });
    const lead = new Agent({
      name: "lead",
      model: new ScriptedModel({
        modelId: "m",
        ids: "sequential",
        script: [{ toolCalls: [{ name: "ask_helper", input: { task: "help" } }] }, { text: "done" }],
      }),
      tools: [agentAsTool(helper, { name: "ask_helper", description: "Asks the helper." })],
      hooks: [t.hook],
    });
    await lead.invoke("go", { invocationState: { threadId: "t" } });
    expect(t.tree()).toEqual([
      "chat m < invoke_agent lead",
      "chat m < invoke_agent helper",
      "invoke_agent helper < execute_tool ask_helper",
      "execute_tool ask_helper < invoke_agent lead",
      "chat m < invoke_agent lead",
      "invoke_agent lead < root",
    ]);
    expect(new Set(t.spans().map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  test("a gated call paused in a run without any tracing SDK: the no-op tracer records nothing and keeps no links", async () => {
    const { TracingHook } = await import("../../src/otel/index.js");
    const { InterruptHook } = await import("../../src/hooks/interrupt-hook.js");
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ toolCalls: [{ name: "transfer", input: { to: "bob" } }] }] }),
      tools: [transfer()],
      hooks: [new TracingHook(), new InterruptHook(["transfer"])],
    });
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("interrupt");
    expect(Object.keys(agent.interruptState.context)).not.toContain("kaboo_trace_links");
  });

  test("a run its sampler drops: no span is exported for it or its calls", async () => {
    const { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
      "@opentelemetry/sdk-trace-base"
    );
    const { TracingHook } = await import("../../src/otel/index.js");
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const r = await oneToolRun([new TracingHook({ tracer: provider.getTracer("t") })]).agent.invoke("balance?");
    expect(r.stopReason).toBe("endTurn");
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
