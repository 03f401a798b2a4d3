import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  AfterToolCallEvent,
  BeforeToolCallEvent,
  ScriptedModel,
  tool,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../../src/index.js";
import { echoTool, expectConsistentTranscript } from "./helpers.js";

const results = (agent: Agent) =>
  agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
const uses = (agent: Agent) =>
  agent.messages.flatMap((m) => m.content.filter((b): b is ToolUseBlock => b.type === "toolUse"));
const text = (r: ToolResultBlock | undefined) =>
  r?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";

function oneCall(input: unknown = { x: 1 }, name = "echo") {
  return new ScriptedModel({ script: [{ toolCalls: [{ name, input, id: "c1" }] }, { text: "done" }] });
}

describe("BeforeToolCallEvent", () => {
  test.each([
    [true, 'Tool call "echo" was cancelled.'],
    ["Not allowed on Sundays.", "Not allowed on Sundays."],
    ["", 'Tool call "echo" was cancelled.'],
  ])("cancel = %j: tool not called, error result with the message", async (cancel, expected) => {
    const { tool: t, calls } = echoTool();
    const agent = new Agent({ model: oneCall(), tools: [t] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => void (e.cancel = cancel));
    let cancelMessage: string | undefined;
    agent.hooks.addCallback(AfterToolCallEvent, (e) => void (cancelMessage = e.cancelMessage));
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("endTurn");
    expect(calls).toEqual([]);
    expect(results(agent)).toEqual([
      { type: "toolResult", toolUseId: "c1", status: "error", content: [{ type: "text", text: expected }] },
    ]);
    expect(cancelMessage).toBe(expected);
    expectConsistentTranscript(agent.messages);
  });

  test("cancel is not retried even when AfterToolCall asks", async () => {
    const { tool: t } = echoTool();
    const agent = new Agent({ model: oneCall(), tools: [t] });
    let afters = 0;
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => void (e.cancel = true));
    agent.hooks.addCallback(AfterToolCallEvent, (e) => {
      afters++;
      e.retry = true;
    });
    await agent.invoke("go");
    expect(afters).toBe(1);
  });

  test("selectedTool replacement runs the other tool", async () => {
    const a = echoTool("echo");
    const b = echoTool("shadow");
    const agent = new Agent({ model: oneCall(), tools: [a.tool] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      expect(e.selectedTool).toBe(a.tool);
      e.selectedTool = b.tool;
    });
    await agent.invoke("go");
    expect(a.calls).toEqual([]);
    expect(b.calls).toEqual([1]);
    expect(text(results(agent)[0])).toBe("shadow:1");
  });

  test("toolUse rewrite: the tool gets the new input, the transcript records the call as it ran, id preserved", async () => {
    const { tool: t, calls } = echoTool();
    const agent = new Agent({ model: oneCall({ x: 1 }), tools: [t] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      e.toolUse = { ...e.toolUse, toolUseId: "hijacked", input: { x: 42 } };
    });
    await agent.invoke("go");
    expect(calls).toEqual([42]);
    expect(uses(agent)).toEqual([{ type: "toolUse", toolUseId: "c1", name: "echo", input: { x: 42 } }]);
    expect(results(agent)[0]!.toolUseId).toBe("c1");
    expectConsistentTranscript(agent.messages);
  });

  test("in-place input mutation by a hook that then interrupts does not leak into the paused call", async () => {
    const { tool: t } = echoTool();
    const agent = new Agent({ model: oneCall({ x: 1 }), tools: [t] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      (e.toolUse.input as { x: number }).x = 99;
      e.interrupt({ name: "ask" });
    });
    await agent.invoke("go");
    const ctx = agent.interruptState.toJSON().context as unknown as { toolUseMessage: { content: ToolUseBlock[] } };
    expect(ctx.toolUseMessage.content[0]!.input).toEqual({ x: 1 });
  });

  test("stopLoop: the batch completes, the run ends with 'stopped', transcript consistent", async () => {
    const a = echoTool("a");
    const b = echoTool("b");
    const model = new ScriptedModel({
      script: [
        {
          toolCalls: [
            { name: "a", input: { x: 1 } },
            { name: "b", input: { x: 2 } },
          ],
        },
        { text: "never" },
      ],
    });
    const agent = new Agent({ model, tools: [a.tool, b.tool] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      if (e.toolUse.name === "a") e.stopLoop = true;
    });
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("stopped");
    expect(model.calls).toBe(1);
    expect(a.calls).toEqual([1]);
    expect(b.calls).toEqual([2]);
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expectConsistentTranscript(agent.messages);
  });
});

describe("AfterToolCallEvent", () => {
  test("result rewrite reaches the transcript (id kept)", async () => {
    const { tool: t } = echoTool();
    const agent = new Agent({ model: oneCall(), tools: [t] });
    agent.hooks.addCallback(AfterToolCallEvent, (e) => {
      expect(text(e.result)).toBe("echo:1");
      e.result = {
        type: "toolResult",
        toolUseId: "other",
        status: "success",
        content: [{ type: "text", text: "redacted" }],
      };
    });
    await agent.invoke("go");
    expect(results(agent)).toEqual([
      { type: "toolResult", toolUseId: "c1", status: "success", content: [{ type: "text", text: "redacted" }] },
    ]);
  });

  test("retry re-runs the tool until it succeeds", async () => {
    let n = 0;
    const flaky = tool({
      name: "flaky",
      description: "",
      inputSchema: z.object({}),
      callback: () => {
        if (++n < 3) throw new Error(`fail ${n}`);
        return "finally";
      },
    });
    const agent = new Agent({ model: oneCall({}, "flaky"), tools: [flaky] });
    agent.hooks.addCallback(AfterToolCallEvent, (e) => void (e.retry = e.result.status === "error"));
    await agent.invoke("go");
    expect(n).toBe(3);
    expect(results(agent)).toHaveLength(1);
    expect(text(results(agent)[0])).toBe("finally");
  });

  test("retry is bounded by maxToolRetries; the last result stands", async () => {
    let n = 0;
    const bad = tool({
      name: "bad",
      description: "",
      inputSchema: z.object({}),
      callback: () => {
        throw new Error(`fail ${++n}`);
      },
    });
    const agent = new Agent({ model: oneCall({}, "bad"), tools: [bad], maxToolRetries: 2 });
    agent.hooks.addCallback(AfterToolCallEvent, (e) => void (e.retry = true));
    const r = await agent.invoke("go");
    expect(n).toBe(3);
    expect(text(results(agent)[0])).toContain("fail 3");
    expect(r.metrics.tools.bad).toMatchObject({ calls: 3, errors: 3 });
  });

  test("stopLoop from AfterToolCall ends the run after the batch", async () => {
    const { tool: t } = echoTool();
    const agent = new Agent({ model: oneCall(), tools: [t] });
    agent.hooks.addCallback(AfterToolCallEvent, (e) => void (e.stopLoop = true));
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("stopped");
    expectConsistentTranscript(agent.messages);
  });
});
