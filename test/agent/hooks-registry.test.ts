import { describe, expect, expectTypeOf, test } from "vitest";
import {
  Agent,
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterToolCallEvent,
  AgentInitializedEvent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  HookError,
  HookRegistry,
  InterruptSignal,
  MessageAddedEvent,
  ScriptedModel,
  type AgentResult,
  type HookProvider,
  type JsonValue,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../../src/index.js";

describe("HookRegistry", () => {
  test("dispatch order: registration order, reversed for After* events", async () => {
    const reg = new HookRegistry();
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    const log: string[] = [];
    for (const n of [1, 2, 3]) {
      reg.addCallback(BeforeInvocationEvent, () => void log.push(`b${n}`));
      reg.addCallback(AfterInvocationEvent, () => void log.push(`a${n}`));
    }
    await reg.invoke(new BeforeInvocationEvent(agent, {}, false));
    await reg.invoke(new AfterInvocationEvent(agent, {}, undefined));
    expect(log).toEqual(["b1", "b2", "b3", "a3", "a2", "a1"]);
    expect(
      [BeforeInvocationEvent, BeforeModelCallEvent, BeforeToolCallEvent, MessageAddedEvent].map((c) => c.reverse),
    ).toEqual([false, false, false, false]);
    expect([AfterInvocationEvent, AfterModelCallEvent, AfterToolCallEvent].map((c) => c.reverse)).toEqual([
      true,
      true,
      true,
    ]);
  });

  test("dispatch: the event itself when every callback is synchronous, a promise from the first async one on", async () => {
    const reg = new HookRegistry();
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    const log: string[] = [];
    reg.addCallback(BeforeInvocationEvent, () => void log.push("sync 1"));
    const event = new BeforeInvocationEvent(agent, {}, false);
    expect(reg.dispatch(event)).toBe(event);
    expect(reg.dispatch(new AfterInvocationEvent(agent, {}, undefined))).toBeInstanceOf(AfterInvocationEvent);
    reg.addCallback(BeforeInvocationEvent, async () => {
      await Promise.resolve();
      log.push("async 2");
    });
    reg.addCallback(BeforeInvocationEvent, () => void log.push("sync 3"));
    log.length = 0;
    const pending = reg.dispatch(event);
    expect(pending).toBeInstanceOf(Promise);
    expect(log).toEqual(["sync 1"]);
    await expect(pending).resolves.toBe(event);
    expect(log).toEqual(["sync 1", "async 2", "sync 3"]);
    // A synchronous throw is thrown at once, wrapped as invoke() would reject.
    reg.addCallback(MessageAddedEvent, () => {
      throw new Error("boom");
    });
    const added = new MessageAddedEvent(agent, {}, { role: "user", content: [] });
    expect(() => reg.dispatch(added)).toThrow(HookError);
    await expect(reg.invoke(added)).rejects.toBeInstanceOf(HookError);
  });

  test("a callback added or removed during a dispatch counts from the next event on", async () => {
    const reg = new HookRegistry();
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    const log: string[] = [];
    let offSecond = () => {};
    reg.addCallback(AfterToolCallEvent, () => void log.push("first"));
    offSecond = reg.addCallback(AfterToolCallEvent, () => {
      log.push("second");
      offSecond();
      reg.addCallback(AfterToolCallEvent, () => void log.push("added"));
    });
    reg.addCallback(AfterToolCallEvent, () => void log.push("third"));
    const event = () =>
      new AfterToolCallEvent({
        agent,
        invocationState: {},
        toolUse: { type: "toolUse", toolUseId: "t", name: "x", input: {} },
        selectedTool: undefined,
        result: { type: "toolResult", toolUseId: "t", status: "success", content: [] },
        error: undefined,
        cancelMessage: undefined,
      });
    await reg.invoke(event());
    expect(log).toEqual(["third", "second", "first"]);
    log.length = 0;
    await reg.invoke(event());
    expect(log).toEqual(["added", "third", "first"]);
    expect(reg.has(AfterToolCallEvent)).toBe(true);
    expect(reg.has(BeforeToolCallEvent)).toBe(false);
  });

  test("a throwing callback stops dispatch; InterruptSignal and HookError pass through unwrapped", async () => {
    const reg = new HookRegistry();
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    const signal = new InterruptSignal({ id: "i", name: "n" });
    let later = false;
    reg.addCallback(BeforeInvocationEvent, () => {
      throw signal;
    });
    reg.addCallback(BeforeInvocationEvent, () => void (later = true));
    await expect(reg.invoke(new BeforeInvocationEvent(agent, {}, false))).rejects.toBe(signal);
    expect(later).toBe(false);
    const inner = new HookError("Inner", "X", new Error("x"));
    const reg2 = new HookRegistry();
    reg2.addCallback(BeforeInvocationEvent, async () => {
      throw inner;
    });
    await expect(reg2.invoke(new BeforeInvocationEvent(agent, {}, false))).rejects.toBe(inner);
  });

  test("a provider's callbacks are named after its class even when they are arrow functions", async () => {
    class PolicyGate implements HookProvider {
      registerHooks(r: HookRegistry) {
        r.addCallback(MessageAddedEvent, () => {
          throw "a string";
        });
      }
    }
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "x" }] }), hooks: [new PolicyGate()] });
    const err = (await agent.invoke("go").catch((e: unknown) => e)) as HookError;
    expect(err).toBeInstanceOf(HookError);
    expect(err.hookName).toBe("PolicyGate");
    expect(err.eventName).toBe("MessageAddedEvent");
    expect(err.message).toContain("a string");
  });

  test("AgentInitializedEvent fires once, before the first invocation", async () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "a" }, { text: "b" }] }) });
    const log: string[] = [];
    agent.hooks.addCallback(AgentInitializedEvent, () => void log.push("init"));
    agent.hooks.addCallback(BeforeInvocationEvent, () => void log.push("before"));
    expect(agent.initialized).toBe(false);
    await agent.invoke("1");
    await agent.invoke("2");
    expect(log).toEqual(["init", "before", "before"]);
    expect(agent.initialized).toBe(true);
  });
});

describe("events", () => {
  test("toJSON leaves out agent and invocationState and keeps the writable fields", () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    const toolUse: ToolUseBlock = { type: "toolUse", toolUseId: "t", name: "n", input: { a: 1 } };
    const e = new BeforeToolCallEvent(agent, { secret: "grant" }, toolUse, undefined);
    e.cancel = "no";
    const json = JSON.parse(JSON.stringify(e)) as Record<string, unknown>;
    expect(json).toEqual({ type: "BeforeToolCallEvent", toolUse, cancel: "no", stopLoop: false });
    expect(JSON.stringify(e)).not.toContain("grant");
    const result: ToolResultBlock = { type: "toolResult", toolUseId: "t", status: "success", content: [] };
    const a = new AfterToolCallEvent({ agent, invocationState: {}, toolUse, selectedTool: undefined, result });
    expect(a.toJSON()).toMatchObject({ type: "AfterToolCallEvent", result, retry: false });
    expect(a.type).toBe("AfterToolCallEvent");
  });

  test("types of the event fields hooks write", () => {
    expectTypeOf<BeforeToolCallEvent["cancel"]>().toEqualTypeOf<boolean | string>();
    expectTypeOf<BeforeToolCallEvent["toolUse"]>().toEqualTypeOf<ToolUseBlock>();
    expectTypeOf<AfterToolCallEvent["result"]>().toEqualTypeOf<ToolResultBlock>();
    expectTypeOf<AfterModelCallEvent["retry"]>().toEqualTypeOf<boolean>();
    expectTypeOf<AfterInvocationEvent["result"]>().toEqualTypeOf<AgentResult | undefined>();
    expectTypeOf<BeforeToolCallEvent["interrupt"]>().returns.toEqualTypeOf<JsonValue>();
    expectTypeOf<Agent["invoke"]>().returns.resolves.toEqualTypeOf<AgentResult>();
    // addCallback narrows the event type from the class.
    const reg = new HookRegistry();
    reg.addCallback(AfterToolCallEvent, (e) => {
      expectTypeOf(e).toEqualTypeOf<AfterToolCallEvent>();
    });
  });
});
