import fc from "fast-check";
import { describe, expect, test, vi } from "vitest";
import * as z from "zod/v4";
import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterMultiAgentInvocationEvent,
  AfterNodeCallEvent,
  Agent,
  BeforeInvocationEvent,
  BeforeMultiAgentInvocationEvent,
  BeforeNodeCallEvent,
  BeforeToolCallEvent,
  HookRegistry,
  InterruptState,
  ScriptedModel,
  tool,
  type AgentStreamEvent,
  type HookProvider,
  type ScriptedTurn,
  type ToolResultBlock,
  UserError,
} from "../../src/index.js";
import { DELEGATION_ID_KEY } from "../../src/agent/run-context.js";
import {
  EventPublisher,
  EventType,
  incomingTask,
  resolveToolLabel,
  streamEventToJSON,
  type EventPublisherOptions,
  type StreamEvent,
} from "../../src/hooks/event-publisher.js";
import { resultText as cutResultText } from "../../src/hooks/event-publisher/lifecycle.js";
import { toolResultText } from "../../src/agent/messages/messages.js";
import type { Logger } from "../../src/logger.js";
import { capturingLogger } from "../fixtures/logger.js";

const quietLogger = capturingLogger;

const search = tool({
  name: "search",
  description: "search",
  inputSchema: z.object({ q: z.string() }),
  callback: ({ q }) => `results for ${q}`,
});
const boom = tool({
  name: "boom",
  description: "fails",
  inputSchema: z.object({}),
  callback: () => {
    throw new Error("kaboom");
  },
});
const long = tool({
  name: "long",
  description: "long output",
  inputSchema: z.object({ n: z.number() }),
  callback: ({ n }) => "x".repeat(n),
});

function setup(script: ScriptedTurn[], options: EventPublisherOptions = {}, extraHooks: HookProvider[] = []) {
  const events: StreamEvent[] = [];
  const publisher = new EventPublisher((e) => void events.push(e), "analyst", { logger: quietLogger(), ...options });
  const model = new ScriptedModel({ script, ids: "sequential", chunkSize: 4 });
  const agent = new Agent({
    name: "analyst",
    model,
    tools: [search, boom, long],
    hooks: [publisher, ...extraHooks],
    toolExecutor: "sequential",
  });
  return { events, publisher, agent, model };
}

const types = (events: StreamEvent[]) => events.map((e) => e.type);

/** A gate that asks before every `search` call. */
class AskBeforeSearch implements HookProvider {
  registerHooks(r: HookRegistry): void {
    r.addCallback(BeforeToolCallEvent, (e) => {
      if (e.toolUse.name !== "search") return;
      const answer = e.interrupt({ name: "approve", reason: { tool: "search" } });
      if (answer !== "yes") e.cancel = "denied";
    });
  }
}

describe("EventPublisher with the real runner", () => {
  test("a run with a tool call, a tool error and a text answer: order and content", async () => {
    const { events, agent } = setup(
      [
        {
          toolCalls: [
            { name: "search", input: { q: "q3" } },
            { name: "boom", input: {} },
          ],
        },
        { text: "Q3 was good." },
      ],
      { toolLabels: { search: "Searching", bo: "Prefix label", b: "short" } },
    );
    const result = await agent.invoke("Summarise Q3", { invocationState: { threadId: "t1", runId: "r1" } });
    expect(types(events)).toEqual([
      "agent_start",
      "tool_start",
      "tool_end",
      "tool_start",
      "tool_end",
      "agent_complete",
    ]);
    for (const e of events) {
      expect(e.agentName).toBe("analyst");
      expect(e.data).toMatchObject({ agent_name: "analyst", thread_id: "t1", run_id: "r1" });
      expect(e.data).not.toHaveProperty("stream_group");
      expect(Number.isInteger(e.timestamp)).toBe(true);
    }
    expect(events[1]!.data).toMatchObject({
      tool_name: "search",
      tool_label: "Searching",
      tool_use_id: "call_1",
      tool_input: { q: "q3" },
    });
    expect(events[2]!.data).toMatchObject({
      tool_name: "search",
      status: "success",
      error: null,
      tool_result: "results for q3",
    });
    expect(events[3]!.data).toMatchObject({ tool_name: "boom", tool_label: "Prefix label", tool_use_id: "call_2" });
    expect(events[4]!.data).toMatchObject({ tool_name: "boom", status: "error", error: "kaboom" });
    expect(events[4]!.data.tool_result).toContain("kaboom");
    const complete = events[5]!.data;
    expect(complete).toMatchObject({
      stop_reason: "endTurn",
      text: "Q3 was good.",
      cycles: 2,
      usage: {
        input_tokens: result.metrics.usage.inputTokens,
        output_tokens: result.metrics.usage.outputTokens,
        total_tokens: result.metrics.usage.totalTokens,
      },
    });
    expect(result.metrics.usage.totalTokens).toBeGreaterThan(0);
    expect(complete.duration_ms).toBe(Math.round(result.metrics.durationMs));
    expect(complete.message).toEqual(result.message);
  });

  test("a model error: ERROR with the message and type, no completion, the run still fails", async () => {
    class ThrottledError extends Error {
      override name = "ThrottledError";
    }
    const { events, agent } = setup([{ error: new ThrottledError("slow down") }], { streamGroup: "team.analyst" });
    await expect(agent.invoke("hi", { invocationState: { threadId: "t" } })).rejects.toThrow("slow down");
    expect(types(events)).toEqual(["stream_group_start", "agent_start", "error", "stream_group_end"]);
    expect(events[2]!.data).toMatchObject({
      text: "slow down",
      exception_type: "ThrottledError",
      attempt: 1,
      stream_group: "team.analyst",
    });
    expect(events[3]!.data).toMatchObject({ status: "error" });
  });

  test("a model error a hook retries: ERROR, then the run completes normally", async () => {
    const retry: HookProvider = {
      registerHooks: (r) =>
        r.addCallback(AfterModelCallEvent, (e) => {
          if (e.error !== undefined && e.attempt === 1) e.retry = true;
        }),
    };
    const { events, agent } = setup([{ error: new Error("blip") }, { text: "ok" }], {}, [retry]);
    await agent.invoke("hi");
    expect(types(events)).toEqual(["agent_start", "error", "agent_complete"]);
    expect(events[2]!.data).toMatchObject({ text: "ok", stop_reason: "endTurn", thread_id: null });
  });

  test("a run failing outside the model publishes one ERROR at the end", async () => {
    const broken: HookProvider = {
      registerHooks: (r) =>
        r.addCallback(BeforeToolCallEvent, () => {
          throw new Error("hook bug");
        }),
    };
    const { events, agent } = setup([{ toolCalls: [{ name: "search", input: { q: "a" } }] }], {}, [broken]);
    await expect(agent.invoke("hi")).rejects.toThrow();
    expect(types(events)).toEqual(["agent_start", "tool_start", "error"]);
    expect(events[2]!.data.exception_type).toBe("HookError");
    expect(String(events[2]!.data.text)).toContain("hook bug");
  });

  test("an interrupt: INTERRUPT ends the turn, the group stays open, the resume continues it", async () => {
    const { events, agent } = setup(
      [{ toolCalls: [{ name: "search", input: { q: "x" } }] }, { text: "done" }, { text: "again" }],
      { streamGroup: "team.analyst", streamTitle: "Analysing" },
      [new AskBeforeSearch()],
    );
    const state = { threadId: "t9" };
    const paused = await agent.invoke("go", { invocationState: state });
    expect(paused.stopReason).toBe("interrupt");
    expect(types(events)).toEqual(["stream_group_start", "agent_start", "tool_start", "interrupt"]);
    expect(events[3]!.data).toMatchObject({
      interrupt_id: paused.interrupts[0]!.id,
      name: "approve",
      reason: { tool: "search" },
      stream_group: "team.analyst",
      stream_title: "Analysing",
    });
    events.length = 0;
    await agent.invoke([{ interruptResponse: { interruptId: paused.interrupts[0]!.id, response: "yes" } }], {
      invocationState: state,
    });
    expect(types(events)).toEqual(["agent_start", "tool_start", "tool_end", "agent_complete", "stream_group_end"]);
    expect(events.every((e) => e.data.stream_group === "team.analyst")).toBe(true);
    events.length = 0;
    await agent.invoke("next", { invocationState: state });
    expect(events[0]!.type).toBe("stream_group_start");
    expect(events.every((e) => e.data.stream_group === "team.analyst#2")).toBe(true);
  });

  test("group start carries parent, delegation id, chat-reply and inline-owner flags", async () => {
    const { events, agent, publisher } = setup([{ text: "a" }], {
      streamGroup: "research.web.fetch",
      isChatReply: true,
    });
    publisher.markInlineChatOwner();
    await agent.invoke("go", { invocationState: { [DELEGATION_ID_KEY]: "call_77" } });
    expect(events[0]!.data).toMatchObject({
      parent_group: "research.web",
      tool_call_id: "call_77",
      is_chat_reply: true,
      inline_chat_owner: true,
      task: "go",
      stream_group: "research.web.fetch",
    });
    expect(events.at(-1)).toMatchObject({ type: "stream_group_end", data: { status: "completed" } });
  });

  test("tool result text is cut at maxResultLen", async () => {
    const { events, agent } = setup(
      [
        {
          toolCalls: [
            { name: "long", input: { n: 25 } },
            { name: "long", input: { n: 10 } },
          ],
        },
        { text: "ok" },
      ],
      { maxResultLen: 10 },
    );
    await agent.invoke("go");
    const ends = events.filter((e) => e.type === EventType.TOOL_END);
    expect(ends[0]!.data.tool_result).toBe(`${"x".repeat(10)}...`);
    expect(ends[1]!.data.tool_result).toBe("x".repeat(10));
  });
});

describe("resultText", () => {
  const block = (content: ToolResultBlock["content"]): ToolResultBlock => ({
    type: "toolResult",
    toolUseId: "1",
    status: "success",
    content,
  });
  const resultText = (result: ToolResultBlock | undefined, max: number) => cutResultText(result, max, toolResultText);
  test("JSON parts, empty results, surrogate pairs", () => {
    expect(
      resultText(
        block([
          { type: "json", json: { a: 1 } },
          { type: "text", text: "t" },
        ]),
        100,
      ),
    ).toBe('{"a":1}\nt');
    expect(resultText(block([]), 10)).toBeNull();
    expect(resultText(undefined, 10)).toBeNull();
    expect(resultText(block([{ type: "text", text: "ab😀cd" }]), 3)).toBe("ab...");
  });
  test("property: never longer than maxLen + 3, always a prefix, valid UTF-16", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (text, max) => {
        const out = resultText(block([{ type: "text", text }]), max);
        if (!text) {
          expect(out).toBeNull();
          return;
        }
        expect(out!.length).toBeLessThanOrEqual(max + 3);
        const body = out!.endsWith("...") && text.length > max ? out!.slice(0, -3) : out!;
        expect(text.startsWith(body)).toBe(true);
        // No lone high surrogate left at the cut.
        expect(/[\uD800-\uDBFF]$/.test(body)).toBe(false);
      }),
    );
  });
});

describe("asCallbackHandler", () => {
  test("fed from agent.stream(): TOKEN, REASONING, TOOL_INPUT with the input so far", async () => {
    const { events, agent, publisher } = setup(
      [
        {
          reasoning: "think first",
          toolCalls: [
            { name: "search", input: { q: "hello world" } },
            { name: "boom", input: {} },
          ],
        },
        { text: "The answer is 42." },
      ],
      { toolLabels: { search: "Searching" }, streamGroup: "g" },
    );
    const invocationState = { threadId: "ts", runId: "rs" };
    const onStream = publisher.asCallbackHandler({ invocationState });
    for await (const e of agent.stream("q", { invocationState })) onStream(e);
    const tokens = events.filter((e) => e.type === "token");
    expect(tokens.map((e) => e.data.text).join("")).toBe("The answer is 42.");
    expect(tokens.length).toBeGreaterThan(1);
    expect(
      events
        .filter((e) => e.type === "reasoning")
        .map((e) => e.data.text)
        .join(""),
    ).toBe("think first");
    const inputs = events.filter((e) => e.type === "tool_input");
    const searchInputs = inputs.filter((e) => e.data.tool_name === "search");
    expect(searchInputs.at(-1)!.data.input).toBe(JSON.stringify({ q: "hello world" }));
    for (let i = 1; i < searchInputs.length; i++) {
      expect(String(searchInputs[i]!.data.input).startsWith(String(searchInputs[i - 1]!.data.input))).toBe(true);
    }
    expect(searchInputs[0]!.data).toMatchObject({
      tool_use_id: "call_1",
      tool_label: "Searching",
      thread_id: "ts",
      run_id: "rs",
      stream_group: "g",
    });
    expect(inputs.find((e) => e.data.tool_name === "boom")!.data).toMatchObject({
      tool_use_id: "call_2",
      tool_label: null,
      input: "{}",
    });
    // Stream and hook events interleave in run order: the inputs precede the tool's start.
    const order = types(events);
    expect(order.lastIndexOf("tool_input")).toBeLessThan(order.indexOf("tool_start"));
    expect(order.indexOf("token")).toBeGreaterThan(order.lastIndexOf("tool_end"));
  });

  test("HANDOFF from an orchestrator, with snake_case keys", () => {
    const events: StreamEvent[] = [];
    const p = new EventPublisher((e) => void events.push(e), "swarm");
    p.asCallbackHandler({ threadId: "t" })({
      type: "multiagent_handoff",
      fromNodeIds: ["a"],
      toNodeIds: ["b", "c"],
      message: "over to you",
    });
    expect(events).toEqual([
      {
        type: "handoff",
        agentName: "swarm",
        timestamp: expect.any(Number),
        data: {
          from_node_ids: ["a"],
          to_node_ids: ["b", "c"],
          message: "over to you",
          agent_name: "swarm",
          thread_id: "t",
          run_id: null,
        },
      },
    ]);
  });

  test("property: arbitrary input never throws and publishes nothing unrecognised", () => {
    const events: StreamEvent[] = [];
    const handler = new EventPublisher((e) => void events.push(e), "a").asCallbackHandler();
    fc.assert(
      fc.property(fc.anything(), (x) => {
        expect(() => handler(x as AgentStreamEvent)).not.toThrow();
        expect(() => handler({ type: "model", event: x } as AgentStreamEvent)).not.toThrow();
      }),
    );
    for (const e of events) expect(Object.values(EventType)).toContain(e.type);
  });

  test("a delta for a block that never started, or after messageStart reset, is ignored", () => {
    const events: StreamEvent[] = [];
    const h = new EventPublisher((e) => void events.push(e), "a").asCallbackHandler();
    const model = (event: unknown) => h({ type: "model", event } as AgentStreamEvent);
    model({ type: "contentBlockDelta", index: 0, delta: { type: "toolUseInput", input: "{" } });
    model({ type: "contentBlockStart", index: 0, start: { type: "toolUse", toolUseId: "c1", name: "t" } });
    model({ type: "messageStart", role: "assistant" });
    model({ type: "contentBlockDelta", index: 0, delta: { type: "toolUseInput", input: "{" } });
    model({ type: "contentBlockDelta", index: 0, delta: { type: "reasoning", signature: "sig" } });
    expect(events).toEqual([]);
  });
});

describe("per-conversation state", () => {
  test("100 agents sharing one publisher, 100 concurrent threads: each its own #N and group", async () => {
    const events: StreamEvent[] = [];
    const publisher = new EventPublisher((e) => void events.push(e), "delegate", { streamGroup: "team.delegate" });
    const agents = Array.from(
      { length: 100 },
      (_, i) =>
        new Agent({
          name: `a${i}`,
          // Random tiny delays interleave the threads' events.
          model: new ScriptedModel({ script: () => ({ text: `reply ${i}` }), delayMs: i % 3, chunkSize: 2 }),
          hooks: [publisher],
        }),
    );
    const handlers = agents.map((_, i) => publisher.asCallbackHandler({ threadId: `t${i}` }));
    const round = () =>
      Promise.all(
        agents.map(async (agent, i) => {
          for await (const e of agent.stream(`q${i}`, { invocationState: { threadId: `t${i}` } })) handlers[i]!(e);
        }),
      );
    await round();
    await round();
    // Threads really interleaved (else the test would prove nothing about cross-talk).
    const firstThreads = new Set(events.slice(0, 50).map((e) => e.data.thread_id));
    expect(firstThreads.size).toBeGreaterThan(10);
    for (let i = 0; i < 100; i++) {
      const mine = events.filter((e) => e.data.thread_id === `t${i}`);
      const starts = mine.flatMap((e, k) => (e.type === "stream_group_start" ? [k] : []));
      expect(starts.length).toBe(2);
      const [first, second] = [mine.slice(0, starts[1]), mine.slice(starts[1])];
      expect(first.every((e) => e.data.stream_group === "team.delegate")).toBe(true);
      expect(second.every((e) => e.data.stream_group === "team.delegate#2")).toBe(true);
      for (const part of [first, second]) {
        expect(
          part
            .filter((e) => e.type === "token")
            .map((e) => e.data.text)
            .join(""),
        ).toBe(`reply ${i}`);
        expect(part.at(-1)!.type).toBe("stream_group_end");
        expect(part.filter((e) => e.type === "agent_complete").length).toBe(1);
      }
    }
    expect(publisher.threadCount).toBe(100);
  });

  test("runs without a thread id share the undefined conversation, apart from named ones", async () => {
    const { events, agent } = setup([{ text: "1" }, { text: "2" }, { text: "3" }], { streamGroup: "g" });
    await agent.invoke("a");
    await agent.invoke("b", { invocationState: { threadId: "named" } });
    await agent.invoke("c", { invocationState: { threadId: 42 } }); // not a string: no thread
    const groups = events.filter((e) => e.type === "agent_start").map((e) => [e.data.thread_id, e.data.stream_group]);
    expect(groups).toEqual([
      [null, "g"],
      ["named", "g"],
      [null, "g#2"],
    ]);
  });

  test("maxThreads bounds the memory; a running conversation is never evicted", async () => {
    const events: StreamEvent[] = [];
    const publisher = new EventPublisher((e) => void events.push(e), "a", { streamGroup: "g", maxThreads: 3 });
    const registry = new HookRegistry();
    registry.addHook(publisher);
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    const start = (threadId: string) => registry.invoke(new BeforeInvocationEvent(agent, { threadId }, false));
    const end = (threadId: string) =>
      registry.invoke(new AfterInvocationEvent(agent, { threadId }, undefined, new Error("stop")));
    const groupOf = () => events.at(-1)!.data.stream_group;
    await start("running"); // never finishes
    for (const t of ["b", "c", "d", "e", "f"]) {
      await start(t);
      await end(t);
    }
    expect(publisher.threadCount).toBe(3);
    await start("running");
    expect(groupOf()).toBe("g#2"); // kept: it was in flight
    await start("b");
    expect(groupOf()).toBe("g"); // evicted while idle: starts over
  });
});

describe("callback failures", () => {
  test("a throwing callback is logged and the run goes on", async () => {
    const logger = quietLogger();
    const publisher = new EventPublisher(
      () => {
        throw new Error("consumer down");
      },
      "a",
      { logger },
    );
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ toolCalls: [{ name: "search", input: { q: "x" } }] }, { text: "fine" }] }),
      tools: [search],
      hooks: [publisher],
    });
    const onStream = publisher.asCallbackHandler();
    let last: AgentStreamEvent | undefined;
    for await (const e of agent.stream("go")) {
      onStream(e);
      last = e;
    }
    expect(last).toMatchObject({ type: "result", result: { stopReason: "endTurn" } });
    expect(logger.errors.length).toBeGreaterThan(4);
    const first = logger.lines.find((l) => l.level === "error")!.data;
    expect(first).toMatchObject({ hook: "EventPublisher", agentName: "a", eventType: "agent_start" });
    expect((first as { error: Error }).error.message).toBe("consumer down");
  });

  test("a rejecting callback is logged, and a throwing logger is survived too", async () => {
    const logger = quietLogger();
    const p = new EventPublisher(() => Promise.reject(new Error("async fail")), "a", { logger });
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "ok" }] }), hooks: [p] });
    expect((await agent.invoke("x")).stopReason).toBe("endTurn");
    await vi.waitFor(() => expect(logger.errors.length).toBe(2));
    const brokenLogger: Logger = {
      warn: () => undefined,
      error: () => {
        throw new Error("logger down");
      },
    };
    const p2 = new EventPublisher(
      () => {
        throw new Error("x");
      },
      "a",
      { logger: brokenLogger },
    );
    const agent2 = new Agent({ model: new ScriptedModel({ script: [{ text: "ok" }] }), hooks: [p2] });
    expect((await agent2.invoke("x")).stopReason).toBe("endTurn");
  });
});

describe("orchestrator events", () => {
  test("node and multi-agent start/stop through a HookRegistry", async () => {
    const events: StreamEvent[] = [];
    const publisher = new EventPublisher((e) => void events.push(e), "team", {
      streamGroup: "ignored.for.orchestrators",
    });
    const registry = new HookRegistry();
    registry.addHook(publisher);
    const plain = { name: "team", interruptState: new InterruptState() };
    class Swarm {
      readonly name = "swarm";
      readonly interruptState = new InterruptState();
    }
    const state = { threadId: "t", runId: "r" };
    await registry.invoke(new BeforeMultiAgentInvocationEvent(plain, state));
    await registry.invoke(new BeforeNodeCallEvent(plain, state, "researcher"));
    await registry.invoke(new AfterNodeCallEvent(plain, state, "researcher", undefined, new Error("node failed")));
    await registry.invoke(new AfterMultiAgentInvocationEvent(new Swarm(), state, { ok: true }));
    await registry.invoke(new BeforeNodeCallEvent({ ...plain, type: "graph" } as typeof plain, {}, "n"));
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ["multiagent_start", { multiagent_type: null, agent_name: "team", thread_id: "t", run_id: "r" }],
      ["node_start", { node_id: "researcher", multiagent_type: null, agent_name: "team", thread_id: "t", run_id: "r" }],
      [
        "node_stop",
        {
          node_id: "researcher",
          status: "error",
          multiagent_type: null,
          agent_name: "team",
          thread_id: "t",
          run_id: "r",
        },
      ],
      [
        "multiagent_complete",
        { status: "completed", multiagent_type: "swarm", agent_name: "team", thread_id: "t", run_id: "r" },
      ],
      ["node_start", { node_id: "n", multiagent_type: "graph", agent_name: "team", thread_id: null, run_id: null }],
    ]);
  });
});

describe("construction and helpers", () => {
  test("bad options are clear errors", () => {
    expect(() => new EventPublisher("nope" as never, "a")).toThrow(UserError);
    expect(() => new EventPublisher(() => undefined, "a", { maxResultLen: 0 })).toThrow(/maxResultLen/);
    expect(() => new EventPublisher(() => undefined, "a", { maxThreads: 1.5 })).toThrow(/maxThreads/);
  });

  test("streamEventToJSON gives the Python asdict() shape", () => {
    const e: StreamEvent = {
      type: EventType.TOKEN,
      agentName: "a",
      timestamp: 1_700_000_000_500,
      data: { text: "hi" },
    };
    expect(streamEventToJSON(e)).toEqual({
      type: "token",
      agent_name: "a",
      timestamp: 1_700_000_000.5,
      data: { text: "hi" },
    });
  });

  test("resolveToolLabel: exact wins, else the longest prefix", () => {
    const labels = { github___: "GitHub", github___search: "Searching GitHub", git: "Git" };
    expect(resolveToolLabel("github___search", labels)).toBe("Searching GitHub");
    expect(resolveToolLabel("github___issues", labels)).toBe("GitHub");
    expect(resolveToolLabel("gitlab", labels)).toBe("Git");
    expect(resolveToolLabel("other", labels)).toBeNull();
    expect(resolveToolLabel("constructor", {})).toBeNull();
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 4 }), fc.string()), fc.string({ maxLength: 6 }), (map, name) => {
        const got = resolveToolLabel(name, map);
        if (Object.hasOwn(map, name)) {
          expect(got).toBe(map[name]);
          return;
        }
        // As in the Python original, an empty key is no catch-all.
        const keys = Object.keys(map).filter((k) => k !== "" && name.startsWith(k));
        if (keys.length === 0) {
          expect(got).toBeNull();
          return;
        }
        const best = Math.max(...keys.map((k) => k.length));
        expect(keys.filter((k) => k.length === best).map((k) => map[k])).toContain(got);
      }),
    );
  });

  test("incomingTask: newest user text, handoff section first, tool results skipped", () => {
    expect(
      incomingTask([
        {
          role: "user",
          content: [
            { type: "text", text: "User Request: plan a trip\n\nHandoff Message: book the hotel\n\nContext: ..." },
          ],
        },
        { role: "user", content: [{ type: "toolResult", toolUseId: "1", status: "success", content: [] }] },
      ]),
    ).toBe("book the hotel");
    expect(incomingTask([{ role: "user", content: [{ type: "text", text: "User Request: plan a trip" }] }])).toBe(
      "plan a trip",
    );
    expect(incomingTask([{ role: "assistant", content: [{ type: "text", text: "x" }] }])).toBeNull();
    expect(incomingTask([{ role: "user", content: [{ type: "text", text: "y".repeat(500) }] }], 10)).toBe(
      `${"y".repeat(9)}…`,
    );
    expect(incomingTask([{ role: "user" } as never])).toBeNull();
  });
});

describe("orchestrator outcomes", () => {
  test("NODE_STOP and MULTIAGENT_COMPLETE report the node's or orchestrator's own status", async () => {
    const { HookRegistry, AfterNodeCallEvent, AfterMultiAgentInvocationEvent, InterruptState } = await import(
      "../../src/index.js"
    );
    const { EventPublisher } = await import("../../src/hooks/event-publisher.js");
    const seen: { type: string; data: Record<string, unknown> }[] = [];
    const registry = new HookRegistry();
    registry.addHook(new EventPublisher((e) => void seen.push(e as never), "graph"));
    const orchestrator = { name: "g", type: "graph", interruptState: new InterruptState() };
    await registry.invoke(new AfterNodeCallEvent(orchestrator, {}, "a", { status: "interrupted" }));
    await registry.invoke(new AfterNodeCallEvent(orchestrator, {}, "b", undefined, new Error("x")));
    await registry.invoke(new AfterNodeCallEvent(orchestrator, {}, "c", { text: "no status" }));
    await registry.invoke(new AfterMultiAgentInvocationEvent(orchestrator, {}, { status: "failed" }));
    expect(seen.map((e) => e.data.status)).toEqual(["interrupted", "error", "completed", "failed"]);
  });
});
