/**
 * A run's per-cycle work must not grow with its transcript. Not timed: these count the characters
 * `JSON.stringify` produces per cycle, which grew linearly per cycle (quadratic per run) when the
 * token projection and the scripted model stringified the whole transcript on every model call.
 */
import fc from "fast-check";
import { afterEach, describe, expect, test, vi } from "vitest";
import * as z from "zod/v4";
import { messageChars, transcriptChars } from "../../src/agent/messages/transcript-size.js";
import {
  Agent,
  BeforeModelCallEvent,
  estimateTokens,
  ScriptedModel,
  tool,
  type HookProvider,
  type Message,
} from "../../src/index.js";
import {
  ContextHook,
  EventPublisher,
  InterruptHook,
  MaxToolCallsGuard,
  StopGuard,
  ToolNameSanitizer,
} from "../../src/hooks/index.js";

const echo = tool({
  name: "echo",
  description: "echo",
  inputSchema: z.object({ text: z.string() }),
  callback: ({ text }) => text,
});

function loopModel(n: number): ScriptedModel {
  const script = Array.from({ length: n }, (_, i) => ({ toolCalls: [{ name: "echo", input: { text: `ping ${i}` } }] }));
  return new ScriptedModel({ script: [...script, { text: "done" }], ids: "sequential" });
}

/** Characters `JSON.stringify` returned during an `n`-cycle run, per cycle. */
async function stringifiedPerCycle(n: number, hooks: () => HookProvider[]): Promise<number> {
  const agent = new Agent({ model: loopModel(n), tools: [echo], hooks: hooks() });
  const real = JSON.stringify;
  let chars = 0;
  const spy = vi.spyOn(JSON, "stringify").mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
    const out = real(...args);
    chars += out?.length ?? 0;
    return out;
  });
  try {
    const result = await agent.invoke("go");
    expect(result.stopReason).toBe("endTurn");
  } finally {
    spy.mockRestore();
  }
  expect(agent.messages).toHaveLength(2 * n + 2);
  return chars / n;
}

const readsProjection = (seen: number[]): HookProvider => ({
  registerHooks: (r) => r.addCallback(BeforeModelCallEvent, (e) => void seen.push(e.projectedInputTokens)),
});

const fullStack = (): HookProvider[] => [
  new InterruptHook(["transfer"]),
  new MaxToolCallsGuard({ maxCalls: 10_000 }),
  new ToolNameSanitizer(),
  new ContextHook(),
  new EventPublisher(() => {}, "bench"),
  new StopGuard(() => false),
];

describe("per-cycle serialisation is flat in the run's length", () => {
  afterEach(() => vi.restoreAllMocks());

  test.each([
    ["no hooks", (): HookProvider[] => []],
    ["a hook reading projectedInputTokens", (): HookProvider[] => [readsProjection([])]],
    ["the full hook stack", fullStack],
  ])("%s", async (_, hooks) => {
    const short = await stringifiedPerCycle(20, hooks);
    const long = await stringifiedPerCycle(400, hooks);
    // Whole-transcript stringifying made the long run's figure ~20× the short one's.
    expect(long / short).toBeLessThan(1.5);
  });
});

describe("the token projection", () => {
  test("equals a whole-transcript estimate at every call, and is computed only when read", async () => {
    const seen: number[] = [];
    const expected: number[] = [];
    const exact: HookProvider = {
      registerHooks: (r) =>
        r.addCallback(BeforeModelCallEvent, (e) => {
          const m = e.agent.messages;
          expected.push(Math.ceil(((e.agent.systemPrompt?.length ?? 0) + JSON.stringify(m).length) / 4));
        }),
    };
    const agent = new Agent({
      model: loopModel(5),
      systemPrompt: "be brief",
      tools: [echo],
      hooks: [exact, readsProjection(seen)],
    });
    await agent.invoke("go");
    expect(seen).toEqual(expected);
    expect(seen).toHaveLength(6);

    const spy = vi.spyOn(JSON, "stringify");
    const lazy = new BeforeModelCallEvent(agent, {}, () => estimateTokens(undefined, [{ role: "user", content: [] }]));
    expect(spy).not.toHaveBeenCalled();
    expect(lazy.projectedInputTokens).toBe(lazy.projectedInputTokens);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(lazy.toJSON()).toMatchObject({
      type: "BeforeModelCallEvent",
      projectedInputTokens: lazy.projectedInputTokens,
    });
    spy.mockRestore();
  });

  test("measures each message once, and again when its content array is replaced or resized", () => {
    const a: Message = { role: "user", content: [{ type: "text", text: "hello" }] };
    const b: Message = { role: "assistant", content: [{ type: "text", text: "hi" }] };
    expect(transcriptChars([a, b])).toBe(JSON.stringify([a, b]).length);
    const spy = vi.spyOn(JSON, "stringify");
    expect(transcriptChars([a, b, a])).toBe(JSON.stringify([a, b, a]).length);
    expect(spy).toHaveBeenCalledTimes(1); // the check above, not the cached messages
    a.content = [{ type: "text", text: "hello again" }];
    expect(messageChars(a)).toBe(JSON.stringify(a).length);
    b.content.push({ type: "text", text: "more" });
    expect(messageChars(b)).toBe(JSON.stringify(b).length);
    spy.mockRestore();
  });

  test("transcriptChars is JSON.stringify(messages).length for any transcript", () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant("text" as const), text: fc.string({ unit: "grapheme" }) }),
      fc.record({
        type: fc.constant("toolUse" as const),
        toolUseId: fc.string(),
        name: fc.string(),
        input: fc.jsonValue(),
      }),
    );
    const message = fc.record({
      role: fc.constantFrom("user" as const, "assistant" as const),
      content: fc.array(block),
    });
    fc.assert(
      fc.property(fc.array(message), (messages: Message[]) => {
        expect(transcriptChars(messages)).toBe(JSON.stringify(messages).length);
        expect(transcriptChars(messages)).toBe(JSON.stringify(messages).length); // cached
      }),
    );
  });
});

describe("ScriptedModel", () => {
  test("lastUserText is found across calls without rescanning, and follows a new user message", async () => {
    const texts: string[] = [];
    const model = new ScriptedModel({
      script: ({ lastUserText, callIndex }) => {
        texts.push(lastUserText);
        return callIndex % 3 === 2 ? { text: "ok" } : { toolCalls: [{ name: "echo", input: { text: "x" } }] };
      },
    });
    const agent = new Agent({ model, tools: [echo] });
    await agent.invoke("first");
    await agent.invoke("second");
    expect(texts).toEqual(["first", "first", "first", "second", "second", "second"]);
  });

  test("usage counts what each call was sent, incrementally and after the conversation changed", async () => {
    const model = loopModel(3);
    const sent: Message[][] = [];
    const reported: number[] = [];
    const watched = (agent: Agent) => {
      agent.modelInput.use((input) => {
        sent.push(input.messages);
        return input;
      });
      return agent;
    };
    const run = async (agent: Agent, input: string) => {
      for await (const e of agent.stream(input))
        if (e.type === "model" && e.event.type === "metadata") reported.push(e.event.usage?.inputTokens ?? -1);
    };
    await run(watched(new Agent({ model, systemPrompt: "sys", tools: [echo] })), "go");
    // The same model on another conversation, then on one whose earlier messages were replaced.
    const other = watched(new Agent({ model: loopModel(1), systemPrompt: "sys", tools: [echo] }));
    await run(other, "again");
    other.messages[1] = { role: "assistant", content: [{ type: "text", text: "rewritten" }] };
    other.messages.splice(2);
    other.model = model;
    model.calls = 0;
    await run(other, "third");
    expect(sent).toHaveLength(4 + 2 + 4);
    expect(reported).toEqual(sent.map((m) => Math.ceil((3 + JSON.stringify(m).length) / 4)));
  });
});
