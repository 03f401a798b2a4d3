import { describe, expect, test } from "vitest";
import {
  Agent,
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterToolCallEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  HookError,
  MaxModelRetriesError,
  ScriptedModel,
  type AgentResult,
  type HookProvider,
  type HookRegistry,
} from "../../src/index.js";
import { echoTool, expectConsistentTranscript, Recorder } from "./helpers.js";

describe("loop order", () => {
  test("events fire in the documented order for one tool round", async () => {
    const rec = new Recorder();
    const { tool } = echoTool();
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "echo", input: { x: 1 } }] }, { text: "done" }] });
    const agent = new Agent({ model, tools: [tool], hooks: [rec] });
    const result = await agent.invoke("go");
    expect(result.stopReason).toBe("endTurn");
    expect(rec.log).toEqual([
      "BeforeInvocation",
      "MessageAdded:user",
      "BeforeModelCall",
      "AfterModelCall",
      "BeforeToolCall:echo",
      "AfterToolCall:echo",
      "MessageAdded:assistant",
      "MessageAdded:user",
      "BeforeModelCall",
      "AfterModelCall",
      "MessageAdded:assistant",
      "AfterInvocation",
    ]);
    expectConsistentTranscript(agent.messages);
  });

  test("After* callbacks run in reverse registration order, Before* in order, async awaited", async () => {
    const log: string[] = [];
    const mk = (name: string): HookProvider => ({
      registerHooks(r: HookRegistry) {
        r.addCallback(BeforeModelCallEvent, async () => {
          await new Promise((res) => setTimeout(res, name === "A" ? 5 : 0));
          log.push(`before:${name}`);
        });
        r.addCallback(AfterModelCallEvent, async () => {
          await Promise.resolve();
          log.push(`afterModel:${name}`);
        });
        r.addCallback(AfterToolCallEvent, () => void log.push(`afterTool:${name}`));
        r.addCallback(AfterInvocationEvent, async () => {
          await new Promise((res) => setTimeout(res, name === "C" ? 5 : 0));
          log.push(`afterInv:${name}`);
        });
      },
    });
    const { tool } = echoTool();
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "echo", input: { x: 1 } }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: [tool], hooks: [mk("A"), mk("B"), mk("C")] });
    await agent.invoke("go");
    expect(log).toEqual([
      "before:A",
      "before:B",
      "before:C",
      "afterModel:C",
      "afterModel:B",
      "afterModel:A",
      "afterTool:C",
      "afterTool:B",
      "afterTool:A",
      "before:A",
      "before:B",
      "before:C",
      "afterModel:C",
      "afterModel:B",
      "afterModel:A",
      "afterInv:C",
      "afterInv:B",
      "afterInv:A",
    ]);
  });

  test("addCallback's cleanup unsubscribes", async () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "a" }, { text: "b" }] }) });
    let n = 0;
    const off = agent.hooks.addCallback(BeforeModelCallEvent, () => void n++);
    await agent.invoke("1");
    off();
    await agent.invoke("2");
    expect(n).toBe(1);
    expect(agent.hooks.has(BeforeModelCallEvent)).toBe(false);
  });
});

describe("AfterInvocation fires on every outcome", () => {
  function watch(agent: Agent) {
    const seen: { result: AgentResult | undefined; error: unknown }[] = [];
    agent.hooks.addCallback(AfterInvocationEvent, (e) => void seen.push({ result: e.result, error: e.error }));
    return seen;
  }
  test("success", async () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "hi" }] }) });
    const seen = watch(agent);
    const r = await agent.invoke("x");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.result).toBe(r);
    expect(seen[0]!.error).toBeUndefined();
  });
  test("interrupt", async () => {
    const { tool } = echoTool();
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ toolCalls: [{ name: "echo", input: { x: 1 } }] }] }),
      tools: [tool],
    });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => void e.interrupt({ name: "ok?" }));
    const seen = watch(agent);
    const r = await agent.invoke("x");
    expect(r.stopReason).toBe("interrupt");
    expect(seen[0]!.result?.stopReason).toBe("interrupt");
  });
  test("error (model throws)", async () => {
    const boom = new Error("model down");
    const agent = new Agent({ model: new ScriptedModel({ script: [{ error: boom }] }) });
    const seen = watch(agent);
    await expect(agent.invoke("x")).rejects.toBe(boom);
    expect(seen).toEqual([{ result: undefined, error: boom }]);
    expect(agent.running).toBe(false);
  });
  test("abort", async () => {
    const ac = new AbortController();
    ac.abort();
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "never" }] }) });
    const seen = watch(agent);
    const r = await agent.invoke("x", { signal: ac.signal });
    expect(r.stopReason).toBe("cancelled");
    expect(seen[0]!.result?.stopReason).toBe("cancelled");
  });
});

describe("a hook that throws", () => {
  class Exploding implements HookProvider {
    registerHooks(r: HookRegistry) {
      r.addCallback(BeforeToolCallEvent, () => {
        throw new TypeError("kaput");
      });
    }
  }
  test("fails the run with a HookError naming the provider and event; AfterInvocation sees it", async () => {
    const { tool, calls } = echoTool();
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "echo", input: { x: 1 } }] }] });
    const agent = new Agent({ model, tools: [tool], hooks: [new Exploding()] });
    let seen: unknown;
    agent.hooks.addCallback(AfterInvocationEvent, (e) => void (seen = e.error));
    const err = await agent.invoke("x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookError);
    const h = err as HookError;
    expect(h.code).toBe("HOOK_FAILED");
    expect(h.hookName).toBe("Exploding");
    expect(h.eventName).toBe("BeforeToolCallEvent");
    expect(h.message).toContain("Exploding");
    expect(h.message).toContain("BeforeToolCallEvent");
    expect(h.cause).toBeInstanceOf(TypeError);
    expect(seen).toBe(err);
    expect(calls).toEqual([]);
    expectConsistentTranscript(agent.messages);
    // The agent is usable again afterwards.
    expect(agent.running).toBe(false);
  });
  test("a plain callback is named by its function name", async () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "a" }] }) });
    agent.hooks.addCallback(AfterModelCallEvent, function auditTrail() {
      throw new Error("no");
    });
    const err = (await agent.invoke("x").catch((e: unknown) => e)) as HookError;
    expect(err).toBeInstanceOf(HookError);
    expect(err.hookName).toBe("auditTrail");
    expect(err.eventName).toBe("AfterModelCallEvent");
  });
});

describe("model retries", () => {
  test("retry recovers from a model error", async () => {
    const model = new ScriptedModel({ script: [{ error: new Error("429") }, { text: "second try" }] });
    const agent = new Agent({ model });
    const attempts: number[] = [];
    agent.hooks.addCallback(AfterModelCallEvent, (e) => {
      attempts.push(e.attempt);
      if (e.error) e.retry = true;
    });
    const r = await agent.invoke("x");
    expect(r.stopReason).toBe("endTurn");
    expect(r.message.content).toEqual([{ type: "text", text: "second try" }]);
    expect(attempts).toEqual([1, 2]);
    expect(r.metrics.modelCalls).toBe(2);
    expect(r.metrics.cycles).toBe(1);
  });
  test("retry can discard a successful response", async () => {
    const model = new ScriptedModel({ script: [{ text: "bad" }, { text: "good" }] });
    const agent = new Agent({ model });
    agent.hooks.addCallback(AfterModelCallEvent, (e) => {
      if (e.stopResponse?.message.content.some((b) => b.type === "text" && b.text === "bad")) e.retry = true;
    });
    const r = await agent.invoke("x");
    expect(r.message.content).toEqual([{ type: "text", text: "good" }]);
    expect(agent.messages.map((m) => m.content)).toEqual([
      [{ type: "text", text: "x" }],
      [{ type: "text", text: "good" }],
    ]);
  });
  test("retry is bounded: MaxModelRetriesError after maxModelRetries", async () => {
    const model = new ScriptedModel({ script: () => ({ error: new Error("always") }) });
    const agent = new Agent({ model, maxModelRetries: 2 });
    agent.hooks.addCallback(AfterModelCallEvent, (e) => void (e.retry = true));
    const err = (await agent.invoke("x").catch((e: unknown) => e)) as MaxModelRetriesError;
    expect(err).toBeInstanceOf(MaxModelRetriesError);
    expect(err.code).toBe("MAX_MODEL_RETRIES");
    expect(model.calls).toBe(3); // first attempt + 2 retries
    expect(err.attempts).toBe(3);
    expect((err.cause as Error).message).toBe("always");
  });
  test("a model error without retry surfaces as is", async () => {
    const model = new ScriptedModel({ script: [{ error: new RangeError("quota") }] });
    const agent = new Agent({ model });
    await expect(agent.invoke("x")).rejects.toBeInstanceOf(RangeError);
  });
});
