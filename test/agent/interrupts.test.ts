import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  BeforeInvocationEvent,
  BeforeToolCallEvent,
  InterruptState,
  INTERRUPT_STATE_VERSION,
  InvalidInterruptResponseError,
  InvalidStateError,
  PartialResumeError,
  PendingInterruptsError,
  ScriptedModel,
  tool,
  UnknownInterruptIdError,
  type HookProvider,
  type HookRegistry,
  type JsonValue,
  type ToolResultBlock,
} from "../../src/index.js";
import { echoTool, expectConsistentTranscript } from "./helpers.js";

const resultsOf = (agent: Agent) =>
  agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
const answer = (interruptId: string, response: JsonValue) => ({ interruptResponse: { interruptId, response } });

/** Gates every call to `gated` tools behind an "approve" interrupt. */
class Gate implements HookProvider {
  constructor(readonly gated: string[]) {}
  registerHooks(r: HookRegistry) {
    r.addCallback(BeforeToolCallEvent, (e) => {
      if (!this.gated.includes(e.toolUse.name)) return;
      const a = e.interrupt({ name: "approve", reason: { tool: e.toolUse.name } }) as { ok: boolean };
      if (!a.ok) e.cancel = "denied";
    });
  }
}

function batchSetup() {
  const a = echoTool("a");
  const b = echoTool("b");
  const c = echoTool("c");
  const model = new ScriptedModel({
    script: [
      {
        toolCalls: [
          { name: "a", input: { x: 1 }, id: "t1" },
          { name: "b", input: { x: 2 }, id: "t2" },
          { name: "c", input: { x: 3 }, id: "t3" },
        ],
      },
      { text: "all done" },
    ],
  });
  return { a, b, c, model, tools: [a.tool, b.tool, c.tool] };
}

describe("interrupts in a batch", () => {
  test("all interrupts of a concurrent batch are collected; finished tools are not re-run on resume; resume skips the model", async () => {
    const { a, b, c, model, tools } = batchSetup();
    const agent = new Agent({ model, tools, hooks: [new Gate(["a", "c"])] });
    const r1 = await agent.invoke("go");
    expect(r1.stopReason).toBe("interrupt");
    expect(r1.interrupts.map((i) => i.id).sort()).toEqual([
      "hook:beforeToolCall:t1:approve",
      "hook:beforeToolCall:t3:approve",
    ]);
    expect(r1.interrupts[0]!.reason).toEqual({ tool: r1.interrupts[0]!.id.includes("t1") ? "a" : "c" });
    expect(b.calls).toEqual([2]);
    expect(a.calls).toEqual([]);
    // The paused call is not in the transcript yet: nothing half-written.
    expect(agent.messages).toHaveLength(1);
    expectConsistentTranscript(agent.messages);

    const resuming: boolean[] = [];
    agent.hooks.addCallback(BeforeInvocationEvent, (e) => void resuming.push(e.resuming));
    const r2 = await agent.invoke([
      answer("hook:beforeToolCall:t1:approve", { ok: true }),
      answer("hook:beforeToolCall:t3:approve", { ok: false }),
    ]);
    expect(resuming).toEqual([true]);
    expect(r2.stopReason).toBe("endTurn");
    expect(model.calls).toBe(2); // the first call and the final answer; the resume did not call the model again
    expect(a.calls).toEqual([1]);
    expect(b.calls).toEqual([2]);
    expect(c.calls).toEqual([]);
    const res = new Map(resultsOf(agent).map((x) => [x.toolUseId, x]));
    expect(res.get("t1")!.status).toBe("success");
    expect(res.get("t2")!.content).toEqual([{ type: "text", text: "b:2" }]);
    expect(res.get("t3")).toMatchObject({ status: "error", content: [{ type: "text", text: "denied" }] });
    expect(resultsOf(agent).map((x) => x.toolUseId)).toEqual(["t1", "t2", "t3"]);
    expectConsistentTranscript(agent.messages);
    expect(agent.interruptState.activated).toBe(false);
  });

  test("sequential executor also collects every interrupt", async () => {
    const { model, tools, b } = batchSetup();
    const agent = new Agent({ model, tools, toolExecutor: "sequential", hooks: [new Gate(["a", "c"])] });
    const r = await agent.invoke("go");
    expect(r.interrupts).toHaveLength(2);
    expect(b.calls).toEqual([2]);
  });

  test("a tool's own interrupt has id tool:<toolUseId>:<name> and gets the answer on resume", async () => {
    const answers: JsonValue[] = [];
    let runs = 0;
    const ask = tool({
      name: "ask",
      description: "",
      inputSchema: z.object({}),
      callback: (_i, ctx) => {
        runs++;
        const v = ctx.interrupt({ name: "color", reason: "pick one" });
        answers.push(v);
        return `picked ${String(v)}`;
      },
    });
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "ask", id: "q9" }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: [ask] });
    const r1 = await agent.invoke("go");
    expect(r1.interrupts).toEqual([{ id: "tool:q9:color", name: "color", reason: "pick one" }]);
    const r2 = await agent.invoke([answer("tool:q9:color", "blue")]);
    expect(r2.stopReason).toBe("endTurn");
    expect(runs).toBe(2);
    expect(answers).toEqual(["blue"]);
    expect(resultsOf(agent)[0]!.content).toEqual([{ type: "text", text: "picked blue" }]);
  });

  test("a preemptive response returns at once, nothing pauses", async () => {
    const { tool: t, calls } = echoTool();
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "echo", input: { x: 5 } }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: [t] });
    const got: JsonValue[] = [];
    agent.hooks.addCallback(
      BeforeToolCallEvent,
      (e) => void got.push(e.interrupt({ name: "approve", response: { ok: true } })),
    );
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("endTurn");
    expect(got).toEqual([{ ok: true }]);
    expect(calls).toEqual([5]);
    expect(r.interrupts).toEqual([]);
  });

  test("a second interrupt raised on resume pauses again, the first answer is kept", async () => {
    const { tool: t, calls } = echoTool();
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "echo", input: { x: 1 }, id: "k" }] }, { text: "ok" }],
    });
    const agent = new Agent({ model, tools: [t] });
    let firstAnswers = 0;
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      e.interrupt({ name: "first" });
      firstAnswers++;
      e.interrupt({ name: "second" });
    });
    await agent.invoke("go");
    const r2 = await agent.invoke([answer("hook:beforeToolCall:k:first", true)]);
    expect(r2.stopReason).toBe("interrupt");
    expect(r2.interrupts.map((i) => i.id)).toEqual(["hook:beforeToolCall:k:second"]);
    const r3 = await agent.invoke([answer("hook:beforeToolCall:k:second", true)]);
    expect(r3.stopReason).toBe("endTurn");
    expect(calls).toEqual([1]);
    expect(firstAnswers).toBe(2); // runs 2 and 3 got past the first question
  });

  test("discardInterrupts() drops the pending calls and accepts new input", async () => {
    const { model, tools } = batchSetup();
    const agent = new Agent({ model, tools, hooks: [new Gate(["a"])] });
    await agent.invoke("go");
    expect(agent.interruptState.activated).toBe(true);
    agent.discardInterrupts();
    expect(agent.interruptState.activated).toBe(false);
    expect(agent.interruptState.pending()).toEqual([]);
    const r = await agent.invoke("something else");
    expect(r.stopReason).toBe("endTurn");
    expectConsistentTranscript(agent.messages);
  });
});

describe("InterruptState JSON", () => {
  test("round trip and resume on a fresh agent", async () => {
    const first = batchSetup();
    const agent = new Agent({ model: first.model, tools: first.tools, hooks: [new Gate(["a"])] });
    const r1 = await agent.invoke("go");
    const wire = JSON.parse(JSON.stringify(agent.interruptState)) as unknown;
    expect(wire).toMatchObject({ version: INTERRUPT_STATE_VERSION, activated: true });
    const restored = InterruptState.fromJSON(wire);
    expect(restored.toJSON()).toEqual(agent.interruptState.toJSON());

    const second = batchSetup();
    const fresh = new Agent({
      model: new ScriptedModel({ script: [{ text: "fresh done" }] }),
      tools: second.tools,
      hooks: [new Gate(["a"])],
      messages: agent.messages,
    });
    fresh.interruptState = restored;
    const r2 = await fresh.invoke([answer(r1.interrupts[0]!.id, { ok: true })]);
    expect(r2.stopReason).toBe("endTurn");
    expect(second.a.calls).toEqual([1]);
    expect(second.b.calls).toEqual([]); // finished before the pause: its result came from the state
    expect(second.c.calls).toEqual([]);
    expect(resultsOf(fresh).map((x) => x.toolUseId)).toEqual(["t1", "t2", "t3"]);
    expectConsistentTranscript(fresh.messages);
  });

  const valid = () => ({ version: INTERRUPT_STATE_VERSION, activated: false, interrupts: {}, context: {} });
  test.each<[string, unknown]>([
    ["null", null],
    ["a string", "{}"],
    ["an array", []],
    ["wrong version", { ...valid(), version: 2 }],
    ["missing version", { activated: false, interrupts: {}, context: {} }],
    ["activated not boolean", { ...valid(), activated: "yes" }],
    ["interrupts an array", { ...valid(), interrupts: [] }],
    ["interrupt without name", { ...valid(), interrupts: { a: { id: "a" } } }],
    ["key/id mismatch", { ...valid(), interrupts: { a: { id: "b", name: "n" } } }],
    ["non-JSON reason", { ...valid(), interrupts: { a: { id: "a", name: "n", reason: () => 1 } } }],
    ["context not an object", { ...valid(), context: 3 }],
  ])("fromJSON rejects %s with InvalidStateError", (_label, data) => {
    expect(() => InterruptState.fromJSON(data)).toThrow(InvalidStateError);
  });
  test("the wrong-version message names the version", () => {
    expect(() => InterruptState.fromJSON({ ...valid(), version: 99 })).toThrow(/unsupported version 99/);
  });
  test("a state whose context is malformed fails the resume with InvalidStateError", async () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    agent.interruptState = InterruptState.fromJSON({
      version: INTERRUPT_STATE_VERSION,
      activated: true,
      interrupts: { x: { id: "x", name: "n" } },
      context: { toolUseMessage: "nope" },
    });
    await expect(agent.invoke([answer("x", true)])).rejects.toBeInstanceOf(InvalidStateError);
  });
});

describe("resume mistakes are typed errors", () => {
  async function paused() {
    const { model, tools } = batchSetup();
    const agent = new Agent({ model, tools, hooks: [new Gate(["a", "c"])] });
    const r = await agent.invoke("go");
    return { agent, ids: r.interrupts.map((i) => i.id) };
  }
  test("unknown id", async () => {
    const { agent, ids } = await paused();
    const err = await agent
      .invoke([answer("hook:beforeToolCall:nope:approve", true), ...ids.map((id) => answer(id, true))])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownInterruptIdError);
    expect((err as UnknownInterruptIdError).interruptId).toBe("hook:beforeToolCall:nope:approve");
    // Nothing was applied: the agent still waits on both.
    expect(agent.interruptState.pendingIds().sort()).toEqual([...ids].sort());
  });
  test("answering when nothing is pending", async () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    await expect(agent.invoke([answer("x", true)])).rejects.toBeInstanceOf(UnknownInterruptIdError);
  });
  test("partial resume", async () => {
    const { agent, ids } = await paused();
    const err = (await agent.invoke([answer(ids[0]!, { ok: true })]).catch((e: unknown) => e)) as PartialResumeError;
    expect(err).toBeInstanceOf(PartialResumeError);
    expect(err.missing).toEqual([ids[1]]);
    expect(agent.interruptState.pendingIds()).toHaveLength(2);
  });
  test.each([null, undefined])("answer %s", async (value) => {
    const { agent, ids } = await paused();
    const err = await agent
      .invoke(ids.map((id) => ({ interruptResponse: { interruptId: id, response: value as unknown as JsonValue } })))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInterruptResponseError);
    expect((err as InvalidInterruptResponseError).interruptId).toBe(ids[0]);
  });
  test("a malformed resume payload is a typed error, not a ZodError", async () => {
    const { agent } = await paused();
    const err = await agent.invoke([{ interruptResponse: { interruptId: 7 } }] as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInterruptResponseError);
  });
  test("new input while pending", async () => {
    const { agent, ids } = await paused();
    const err = (await agent.invoke("hello?").catch((e: unknown) => e)) as PendingInterruptsError;
    expect(err).toBeInstanceOf(PendingInterruptsError);
    expect([...err.pending].sort()).toEqual([...ids].sort());
    expect(agent.running).toBe(false);
  });
});

describe("failed runs leave no stale interrupts", () => {
  test("a hook error in a batch that also raised an interrupt does not leave that interrupt behind", async () => {
    const a = echoTool("a");
    const b = echoTool("b");
    const model = new ScriptedModel({
      script: [
        {
          toolCalls: [
            { name: "a", input: { x: 1 }, id: "t1" },
            { name: "b", input: { x: 2 }, id: "t2" },
          ],
        },
        { toolCalls: [{ name: "a", input: { x: 3 }, id: "t3" }] },
        { text: "end" },
      ],
    });
    const agent = new Agent({ model, tools: [a.tool, b.tool] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      if (e.toolUse.toolUseId === "t2") throw new Error("policy store down");
      e.interrupt({ name: "approve" });
    });
    await expect(agent.invoke("go")).rejects.toThrow(/policy store down/);
    expect(agent.interruptState.interrupts.size).toBe(0);
    expect(agent.interruptState.activated).toBe(false);
    const r = await agent.invoke("again");
    // Only this run's question is asked, not the failed run's.
    expect(r.interrupts.map((i) => i.id)).toEqual(["hook:beforeToolCall:t3:approve"]);
  });

  test("a resume that fails can be retried with the same answers", async () => {
    const { tool: t, calls } = echoTool();
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "echo", input: { x: 1 }, id: "k" }] }, { text: "end" }],
    });
    const agent = new Agent({ model, tools: [t] });
    let failOnce = true;
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      e.interrupt({ name: "approve" });
      if (failOnce) {
        failOnce = false;
        throw new Error("transient");
      }
    });
    await agent.invoke("go");
    const answers = [answer("hook:beforeToolCall:k:approve", true)];
    await expect(agent.invoke(answers)).rejects.toThrow(/transient/);
    expect(agent.interruptState.activated).toBe(true);
    await expect(agent.invoke("new topic")).rejects.toThrow(/resume again with the same answers/);
    const r = await agent.invoke(answers);
    expect(r.stopReason).toBe("endTurn");
    expect(calls).toEqual([1]);
    expectConsistentTranscript(agent.messages);
  });
});

describe("a tampered resume context is rejected", () => {
  test.each<[string, unknown]>([
    ["a toolUse without id", { role: "assistant", content: [{ type: "toolUse", name: "echo", input: {} }] }],
    [
      "a toolResult smuggled in",
      {
        role: "assistant",
        content: [
          { type: "toolUse", toolUseId: "a", name: "echo", input: {} },
          { type: "toolResult", toolUseId: "a", status: "success", content: [] },
        ],
      },
    ],
    [
      "duplicate ids",
      {
        role: "assistant",
        content: [
          { type: "toolUse", toolUseId: "a", name: "echo", input: {} },
          { type: "toolUse", toolUseId: "a", name: "echo", input: {} },
        ],
      },
    ],
    ["no calls", { role: "assistant", content: [{ type: "text", text: "hi" }] }],
  ])("%s", async (_label, toolUseMessage) => {
    const { tool: t, calls } = echoTool();
    const agent = new Agent({ model: new ScriptedModel({ script: [] }), tools: [t] });
    agent.interruptState = InterruptState.fromJSON({
      version: INTERRUPT_STATE_VERSION,
      activated: true,
      interrupts: { x: { id: "x", name: "n" } },
      context: { toolUseMessage, toolResults: [] },
    } as unknown);
    await expect(agent.invoke([answer("x", true)])).rejects.toBeInstanceOf(InvalidStateError);
    expect(calls).toEqual([]);
    expect(agent.messages).toEqual([]);
  });
});
