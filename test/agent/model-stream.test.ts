import { describe, expect, test } from "vitest";
import {
  Agent,
  AfterModelCallEvent,
  ModelStreamError,
  ScriptedModel,
  type Model,
  type ModelStreamEvent,
} from "../../src/index.js";
import { echoTool, expectConsistentTranscript } from "./helpers.js";

function modelOf(events: ModelStreamEvent[]): Model {
  return {
    modelId: "raw",
    async *stream() {
      yield* events;
    },
  };
}

describe("model stream", () => {
  test("a stream cut in the middle of a tool call → ModelStreamError, nothing half-written", async () => {
    const { tool, calls } = echoTool();
    // messageStart, blockStart(text), delta, stop, blockStart(tool), one input delta … then the connection drops.
    const model = new ScriptedModel({
      chunkSize: 4,
      script: [{ text: "abc", toolCalls: [{ name: "echo", input: { x: 12345 } }], cutAfterEvents: 6 }],
    });
    const agent = new Agent({ model, tools: [tool] });
    let afterError: unknown;
    agent.hooks.addCallback(AfterModelCallEvent, (e) => void (afterError = e.error));
    const err = await agent.invoke("go").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelStreamError);
    expect((err as ModelStreamError).code).toBe("MODEL_STREAM_ERROR");
    expect((err as Error).message).toContain('"echo"');
    expect(afterError).toBe(err);
    expect(calls).toEqual([]);
    expect(agent.messages).toEqual([{ role: "user", content: [{ type: "text", text: "go" }] }]);
  });

  test("a stream without a stop event → ModelStreamError", async () => {
    const model = modelOf([
      { type: "messageStart", role: "assistant" },
      { type: "contentBlockStart", index: 0, start: { type: "text" } },
      { type: "contentBlockDelta", index: 0, delta: { type: "text", text: "hi" } },
      { type: "contentBlockStop", index: 0 },
    ]);
    const agent = new Agent({ model });
    await expect(agent.invoke("go")).rejects.toThrow(/before its stop event/);
    expect(agent.messages).toHaveLength(1);
  });

  test("a tool-input delta without its start → ModelStreamError", async () => {
    const model = modelOf([
      { type: "messageStart", role: "assistant" },
      { type: "contentBlockDelta", index: 0, delta: { type: "toolUseInput", input: "{}" } },
      { type: "messageStop", stopReason: "toolUse" },
    ]);
    await expect(new Agent({ model }).invoke("go")).rejects.toBeInstanceOf(ModelStreamError);
  });

  test("a delta that does not fit its block → ModelStreamError", async () => {
    const model = modelOf([
      { type: "contentBlockStart", index: 0, start: { type: "text" } },
      { type: "contentBlockDelta", index: 0, delta: { type: "toolUseInput", input: "{}" } },
      { type: "messageStop", stopReason: "endTurn" },
    ]);
    await expect(new Agent({ model }).invoke("go")).rejects.toBeInstanceOf(ModelStreamError);
  });

  test("retry after a broken stream recovers", async () => {
    const model = new ScriptedModel({ script: [{ text: "partial answer", cutAfterEvents: 3 }, { text: "whole" }] });
    const agent = new Agent({ model });
    agent.hooks.addCallback(AfterModelCallEvent, (e) => void (e.retry = e.error instanceof ModelStreamError));
    const r = await agent.invoke("go");
    expect(r.message.content).toEqual([{ type: "text", text: "whole" }]);
    expectConsistentTranscript(agent.messages);
  });

  test("text, reasoning and tool calls are assembled in block order; stop reason follows the content", async () => {
    const { tool } = echoTool();
    const model = new ScriptedModel({
      chunkSize: 3,
      script: [
        {
          reasoning: "think hard",
          text: "calling",
          toolCalls: [{ name: "echo", input: { x: 7 }, id: "z" }],
          stopReason: "endTurn",
        },
        { text: "ok" },
      ],
    });
    const agent = new Agent({ model, tools: [tool] });
    await agent.invoke("go");
    expect(agent.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "think hard" },
        { type: "text", text: "calling" },
        { type: "toolUse", toolUseId: "z", name: "echo", input: { x: 7 } },
      ],
    });
    // endTurn with tool calls is treated as toolUse: the tool ran.
    expect(agent.messages[2]!.content[0]).toMatchObject({ type: "toolResult", toolUseId: "z", status: "success" });
  });

  test("stream() yields model, tool, message and result events; result last", async () => {
    const { tool } = echoTool();
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "echo", input: { x: 1 } }] }, { text: "ok" }] });
    const agent = new Agent({ model, tools: [tool] });
    const types: string[] = [];
    const gen = agent.stream("go");
    let next = await gen.next();
    while (!next.done) {
      types.push(next.value.type);
      next = await gen.next();
    }
    expect(types.at(-1)).toBe("result");
    expect(types).toContain("model");
    expect(types.indexOf("toolStart")).toBeLessThan(types.indexOf("toolResult"));
    expect(types.filter((t) => t === "message")).toHaveLength(4);
    expect(next.value.stopReason).toBe("endTurn");
  });

  test.each(["maxTokens", "contentFiltered"] as const)(
    "a %s turn with tool calls ends the run without a dangling toolUse",
    async (stopReason) => {
      const { tool, calls } = echoTool();
      const model = new ScriptedModel({
        script: [{ text: "let me", toolCalls: [{ name: "echo", input: { x: 1 } }], stopReason }],
      });
      const agent = new Agent({ model, tools: [tool] });
      const r = await agent.invoke("go");
      expect(r.stopReason).toBe(stopReason);
      expect(calls).toEqual([]);
      expect(r.message.content).toEqual([{ type: "text", text: "let me" }]);
      expectConsistentTranscript(agent.messages);
    },
  );

  test("ScriptedModel: a missing turn is a UserError; sequential ids; usage reported", async () => {
    const model = new ScriptedModel({ ids: "sequential", script: [{ toolCalls: [{ name: "a" }, { name: "b" }] }] });
    const events: ModelStreamEvent[] = [];
    for await (const e of model.stream([], { toolSpecs: [] })) events.push(e);
    const ids = events.flatMap((e) =>
      e.type === "contentBlockStart" && e.start.type === "toolUse" ? [e.start.toolUseId] : [],
    );
    expect(ids).toEqual(["call_1", "call_2"]);
    expect(events.at(-1)).toMatchObject({ type: "metadata", usage: { totalTokens: expect.any(Number) } });
    await expect(async () => {
      for await (const _ of model.stream([], { toolSpecs: [] })) void _;
    }).rejects.toThrow(/no turn 2/);
  });
});
