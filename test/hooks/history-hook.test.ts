import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, InterruptState, ScriptedModel, tool, type AgentTool, type Message } from "../../src/index.js";
import {
  HISTORY_EXCHANGE_KEY,
  HistoryHook,
  HistoryPolicy,
  MemoryHistoryExchange,
  SUMMARY_ACK,
  SUMMARY_HEADER,
  createHistoryExchange,
} from "../../src/hooks/history-hook.js";
import { maskTranscript, pairingProblem } from "../../src/hooks/history/transcript.js";
import { capturingLogger } from "../fixtures/logger.js";
import { UserError } from "../../src/errors.js";
import { expectConsistentTranscript } from "../agent/helpers.js";

const big = "x".repeat(1500);
const bigTool = (name = "fetch_page"): AgentTool =>
  tool({
    name,
    description: "returns a long page",
    inputSchema: z.object({ n: z.number() }),
    callback: ({ n }) => `${big}#${n}`,
  });
const shortTool = tool({ name: "short", description: "short result", inputSchema: z.object({}), callback: () => "ok" });

/** A user prompt, a call, its result and the answer. */
function exchangeTurns(n: number, tool = "fetch_page", result = big): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ role: "user", content: [{ type: "text", text: `question ${i}` }] });
    out.push({ role: "assistant", content: [{ type: "toolUse", toolUseId: `c${i}`, name: tool, input: { n: i } }] });
    out.push({
      role: "user",
      content: [
        { type: "toolResult", toolUseId: `c${i}`, status: "success", content: [{ type: "text", text: result }] },
      ],
    });
    out.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
  }
  return out;
}

function resultTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.type === "toolResult" ? b.content.flatMap((p) => (p.type === "text" ? [p.text] : [])) : [],
    ),
  );
}

describe("HistoryHook: full", () => {
  test("seeds from the exchange and writes back; a second agent on the same key sees it", async () => {
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state, {
      main: [
        { role: "user", content: [{ type: "text", text: "earlier" }] },
        { role: "assistant", content: [{ type: "text", text: "noted" }] },
      ],
    });
    expect(state[HISTORY_EXCHANGE_KEY]).toBe(history);
    const seen: number[] = [];
    const a = new Agent({
      model: new ScriptedModel({ script: [(r) => (seen.push(r.messages.length), { text: "A" })] }),
      messages: [{ role: "user", content: [{ type: "text", text: "constructor message, replaced" }] }],
      hooks: [new HistoryHook("main", { enabled: true })],
    });
    await a.invoke("hi", { invocationState: state });
    expect(seen).toEqual([3]);
    const stored = history.get("main") as Message[];
    expect(stored.map((m) => m.content[0])).toEqual([
      { type: "text", text: "earlier" },
      { type: "text", text: "noted" },
      { type: "text", text: "hi" },
      { type: "text", text: "A" },
    ]);
    expect(stored).not.toBe(a.messages);
    a.messages[0]!.content[0] = { type: "text", text: "mutated" };
    expect((history.get("main") as Message[])[0]!.content[0]).toEqual({ type: "text", text: "earlier" });

    const b = new Agent({
      model: new ScriptedModel({ script: [{ text: "B" }] }),
      hooks: [new HistoryHook("main", { enabled: true })],
    });
    await b.invoke("again", { invocationState: state });
    expect((history.get("main") as Message[]).length).toBe(6);
    expect(history.toJSON()).toEqual({ main: history.get("main") });
  });

  test("nothing stored: the agent starts empty; no exchange in the run: the agent keeps its own transcript", async () => {
    const mk = () =>
      new Agent({
        model: new ScriptedModel({ script: () => ({ text: "ok" }) }),
        messages: [
          { role: "user", content: [{ type: "text", text: "own" }] },
          { role: "assistant", content: [{ type: "text", text: "x" }] },
        ],
        hooks: [new HistoryHook("k", { enabled: true })],
      });
    const a = mk();
    const state: Record<string, unknown> = {};
    createHistoryExchange(state);
    await a.invoke("hi", { invocationState: state });
    expect(a.messages.length).toBe(2);
    const b = mk();
    await b.invoke("hi");
    expect(b.messages.length).toBe(4);
    const c = mk();
    await c.invoke("hi", { invocationState: { [HISTORY_EXCHANGE_KEY]: { get: 1 } } });
    expect(c.messages.length).toBe(4);
  });

  test("enabled: false resets before every invocation and never writes back", async () => {
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state, { k: exchangeTurns(1) });
    const lengths: number[] = [];
    const agent = new Agent({
      model: new ScriptedModel({ script: (r) => (lengths.push(r.messages.length), { text: "ok" }) }),
      hooks: [new HistoryHook("k", { enabled: false })],
    });
    await agent.invoke("one", { invocationState: state });
    await agent.invoke("two", { invocationState: state });
    expect(lengths).toEqual([1, 1]);
    expect(history.get("k")).toEqual(exchangeTurns(1));
  });

  test.each([
    ["not an array", { messages: [] }],
    ["an unknown block type", [{ role: "user", content: [{ type: "video", url: "x" }] }]],
    ["a bad role", [{ role: "system", content: [{ type: "text", text: "x" }] }]],
    ["a call without its result", exchangeTurns(1).slice(0, 2)],
    ["a result without its call", [exchangeTurns(1)[0], exchangeTurns(1)[2]]],
    [
      "a result part of an unknown kind",
      [
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: [{ type: "toolUse", toolUseId: "a", name: "t", input: {} }] },
        {
          role: "user",
          content: [{ type: "toolResult", toolUseId: "a", status: "success", content: [{ type: "audio" }] }],
        },
      ],
    ],
    ["a string", "corrupt"],
  ])("a corrupt stored transcript (%s) is logged; the agent starts empty and the run works", async (_name, stored) => {
    const logger = capturingLogger();
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state, { k: stored });
    const lengths: number[] = [];
    const agent = new Agent({
      model: new ScriptedModel({ script: (r) => (lengths.push(r.messages.length), { text: "fine" }) }),
      hooks: [new HistoryHook("k", { enabled: true, logger })],
    });
    const result = await agent.invoke("hi", { invocationState: state });
    expect(result.stopReason).toBe("endTurn");
    expect(lengths).toEqual([1]);
    expect(logger.warns.join()).toMatch(/malformed/);
    expect(history.get("k")).toHaveLength(2);
  });

  test("an exchange whose get throws: logged, start empty, written back", async () => {
    const logger = capturingLogger();
    const written: Message[][] = [];
    const exchange = {
      get: () => {
        throw new Error("store down");
      },
      set: (_k: string, m: Message[]) => void written.push(m),
    };
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ text: "ok" }] }),
      hooks: [new HistoryHook("k", { enabled: true, logger })],
    });
    await agent.invoke("hi", { invocationState: { [HISTORY_EXCHANGE_KEY]: exchange } });
    expect(logger.warns.join()).toMatch(/could not read/);
    expect(written[0]).toHaveLength(2);
  });
});

describe("HistoryHook: masked", () => {
  const masked = new HistoryPolicy({ keep: "masked", keepTools: ["kept"] });

  test("masks every finished call on write-back: long results go, short, kept and delegate results stay", async () => {
    const delegate: AgentTool = { ...bigTool("helper_agent"), kind: "agent" };
    const model = new ScriptedModel({
      ids: "sequential",
      script: [
        {
          toolCalls: [
            { name: "fetch_page", input: { n: 1 } },
            { name: "short", input: {} },
            { name: "kept", input: { n: 2 } },
            { name: "helper_agent", input: { n: 3 } },
          ],
        },
        { text: "done" },
      ],
    });
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state);
    const agent = new Agent({
      model,
      tools: [bigTool(), shortTool, bigTool("kept"), delegate],
      hooks: [new HistoryHook("k", { enabled: true, policy: masked })],
    });
    await agent.invoke("go", { invocationState: state });
    const stored = history.get("k") as Message[];
    expectConsistentTranscript(stored);
    const texts = resultTexts(stored);
    expect(texts[0]).toMatch(/^\[Result of fetch_page cleared to save context \(1502 characters\)/);
    expect(texts.slice(1)).toEqual(["ok", `${big}#2`, `${big}#3`]);
    // The agent's own transcript keeps the full results for the rest of its life in memory.
    expect(resultTexts(agent.messages)[0]).toBe(`${big}#1`);
  });

  test("a transcript stored in full is masked when loaded", async () => {
    const state: Record<string, unknown> = {};
    createHistoryExchange(state, { k: exchangeTurns(2) });
    let sent: Message[] = [];
    const agent = new Agent({
      model: new ScriptedModel({ script: [(r) => ((sent = r.messages), { text: "ok" })] }),
      hooks: [new HistoryHook("k", { enabled: true, policy: masked })],
    });
    await agent.invoke("more", { invocationState: state });
    expect(resultTexts(sent).every((t) => t.startsWith("[Result of fetch_page cleared"))).toBe(true);
    expect(sent).toHaveLength(9);
  });

  test("masking is idempotent, even when minChars is below the placeholder's length", () => {
    const agent = new Agent({ model: new ScriptedModel({ script: [] }) });
    const options = { minChars: 5, keepTools: new Set<string>() };
    const once = maskTranscript(exchangeTurns(3), agent, options);
    const twice = maskTranscript(structuredClone(once), agent, options);
    expect(twice).toEqual(once);
  });

  test("property: masking random transcripts never breaks pairing, keeps every block, never mutates the input", () => {
    const agent = new Agent({
      model: new ScriptedModel({ script: [] }),
      tools: [{ ...bigTool("deleg"), kind: "agent" }],
    });
    const part = fc.oneof(
      fc.string({ maxLength: 60 }).map((text) => ({ type: "text" as const, text })),
      fc.jsonValue({ maxDepth: 2 }).map((json) => ({ type: "json" as const, json: JSON.parse(JSON.stringify(json)) })),
    );
    const turn = fc.record({
      prompt: fc.string({ maxLength: 20 }),
      calls: fc.array(
        fc.record({
          name: fc.constantFrom("a", "b", "deleg", "kept"),
          parts: fc.array(part, { maxLength: 3 }),
          error: fc.boolean(),
        }),
        { maxLength: 4 },
      ),
    });
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 6 }), fc.integer({ min: 0, max: 80 }), (turns, minChars) => {
        const messages: Message[] = [];
        let id = 0;
        for (const t of turns) {
          messages.push({ role: "user", content: [{ type: "text", text: t.prompt }] });
          if (t.calls.length === 0) continue;
          const ids = t.calls.map(() => `id${id++}`);
          messages.push({
            role: "assistant",
            content: t.calls.map((c, i) => ({ type: "toolUse" as const, toolUseId: ids[i]!, name: c.name, input: {} })),
          });
          messages.push({
            role: "user",
            content: t.calls.map((c, i) => ({
              type: "toolResult" as const,
              toolUseId: ids[i]!,
              status: c.error ? ("error" as const) : ("success" as const),
              content: c.parts,
            })),
          });
          messages.push({ role: "assistant", content: [{ type: "text", text: "ok" }] });
        }
        const before = structuredClone(messages);
        const out = maskTranscript(messages, agent, { minChars, keepTools: new Set(["kept"]) });
        expect(messages).toEqual(before);
        expect(pairingProblem(out)).toBeUndefined();
        expect(
          out.map((m) =>
            m.content.map((b) => (b.type === "toolResult" ? `${b.type}:${b.toolUseId}:${b.status}` : b.type)),
          ),
        ).toEqual(
          before.map((m) =>
            m.content.map((b) => (b.type === "toolResult" ? `${b.type}:${b.toolUseId}:${b.status}` : b.type)),
          ),
        );
        expect(maskTranscript(structuredClone(out), agent, { minChars, keepTools: new Set(["kept"]) })).toEqual(out);
      }),
    );
  });
});

describe("HistoryHook: summaries", () => {
  const policy = (summarizer: ScriptedModel, summarizeOver = 150) =>
    new HistoryPolicy({ keep: "masked", minChars: 10_000, summarizeOver, summarizer });

  test("past summarizeOver the oldest calls become one summary pair at the head; the newest prompt stays", async () => {
    const seen: string[] = [];
    const summarizer = new ScriptedModel({
      script: [(r) => (seen.push(r.lastUserText), { text: "They asked 3 questions about pages." })],
    });
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state, { k: exchangeTurns(3, "fetch_page", "a page") });
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ text: "latest answer" }] }),
      hooks: [new HistoryHook("k", { enabled: true, policy: policy(summarizer) })],
    });
    await agent.invoke("newest question", { invocationState: state });
    const stored = history.get("k") as Message[];
    expect(stored[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: `${SUMMARY_HEADER}\nThey asked 3 questions about pages.` }],
    });
    expect(stored[1]).toEqual({ role: "assistant", content: [{ type: "text", text: SUMMARY_ACK }] });
    expect(stored.slice(2)).toEqual([
      { role: "user", content: [{ type: "text", text: "newest question" }] },
      { role: "assistant", content: [{ type: "text", text: "latest answer" }] },
    ]);
    expect(seen[0]).toContain("question 0");
    expect(seen[0]).toContain("result of fetch_page: a page");
    expect(pairingProblem(stored)).toBeUndefined();
  });

  test("under summarizeOver nothing is summarised", async () => {
    const summarizer = new ScriptedModel({ script: [] });
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state, { k: exchangeTurns(1, "t", "r") });
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ text: "ok" }] }),
      hooks: [new HistoryHook("k", { enabled: true, policy: policy(summarizer, 100_000) })],
    });
    await agent.invoke("q", { invocationState: state });
    expect(summarizer.calls).toBe(0);
    expect(history.get("k")).toHaveLength(6);
  });

  test.each([
    ["throws", new ScriptedModel({ script: [{ error: new Error("summarizer down") }] })],
    ["answers nothing", new ScriptedModel({ script: [{ text: "" }] })],
    ["has no script left", new ScriptedModel({ script: [] })],
  ])("a summarizer that %s keeps the unsummarised masked transcript and logs", async (_name, summarizer) => {
    const logger = capturingLogger();
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state, { k: exchangeTurns(3, "fetch_page", "a page") });
    const agent = new Agent({
      model: new ScriptedModel({ script: [{ text: "latest" }] }),
      hooks: [new HistoryHook("k", { enabled: true, policy: policy(summarizer), logger })],
    });
    const result = await agent.invoke("newest", { invocationState: state });
    expect(result.stopReason).toBe("endTurn");
    expect(logger.warns.join()).toMatch(/summarizer failed/);
    const stored = history.get("k") as Message[];
    expect(stored).toHaveLength(14);
    expect(stored.slice(0, 12)).toEqual(exchangeTurns(3, "fetch_page", "a page"));
  });

  test("a second summary folds the first one in", async () => {
    const inputs: string[] = [];
    const summarizer = new ScriptedModel({
      script: (r) => (inputs.push(r.lastUserText), { text: `summary ${inputs.length}` }),
    });
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state, { k: exchangeTurns(3, "t", "r") });
    const agent = new Agent({
      model: new ScriptedModel({ script: () => ({ text: "a".repeat(400) }) }),
      hooks: [new HistoryHook("k", { enabled: true, policy: policy(summarizer, 200) })],
    });
    await agent.invoke("q1", { invocationState: state });
    await agent.invoke("q2", { invocationState: state });
    const stored = history.get("k") as Message[];
    expect((stored[0]!.content[0] as { text: string }).text).toBe(`${SUMMARY_HEADER}\nsummary 2`);
    expect(inputs[1]).toContain("summary 1");
    expect(stored.slice(2).map((m) => m.content[0])).toEqual([
      { type: "text", text: "q2" },
      { type: "text", text: "a".repeat(400) },
    ]);
  });

  test("policy validation", () => {
    expect(() => new HistoryPolicy({ keep: "masked", summarizeOver: 10 })).toThrow(UserError);
    expect(() => new HistoryPolicy({ keep: "bogus" as "full" })).toThrow(UserError);
    expect(() => new HistoryPolicy({ minChars: -1 })).toThrow(UserError);
    expect(() => new HistoryPolicy({ summarizeOver: 0 })).toThrow(UserError);
    expect(() => new HistoryHook("", { enabled: true })).toThrow(UserError);
    expect(new HistoryPolicy()).toMatchObject({ keep: "full", minChars: 1000, summarizeOver: null, summarizer: null });
  });
});

describe("HistoryHook: interrupts and concurrency", () => {
  test("a paused run writes back a transcript without the pending call; a cold agent resumes from it", async () => {
    const ask = tool({
      name: "ask",
      description: "asks",
      inputSchema: z.object({}),
      callback: (_i, ctx) => `answer ${JSON.stringify(ctx.interrupt({ name: "confirm" }))}`,
    });
    const script = () => [{ toolCalls: [{ name: "ask", input: {}, id: "call_1" }] }, { text: "finished" }];
    const state: Record<string, unknown> = {};
    const history = createHistoryExchange(state);
    const warm = new Agent({
      model: new ScriptedModel({ script: script() }),
      tools: [ask],
      hooks: [new HistoryHook("k", { enabled: true })],
    });
    const paused = await warm.invoke("start", { invocationState: state });
    expect(paused.stopReason).toBe("interrupt");
    expect(history.get("k")).toEqual([{ role: "user", content: [{ type: "text", text: "start" }] }]);
    const saved = JSON.parse(JSON.stringify({ interrupt: warm.interruptState.toJSON(), history: history.toJSON() }));

    const state2: Record<string, unknown> = {};
    const history2 = createHistoryExchange(state2, saved.history);
    const model = new ScriptedModel({ script: script().slice(1) });
    const cold = new Agent({ model, tools: [ask], hooks: [new HistoryHook("k", { enabled: true })] });
    cold.interruptState = InterruptState.fromJSON(saved.interrupt);
    const done = await cold.invoke(
      [{ interruptResponse: { interruptId: paused.interrupts[0]!.id, response: "yes" } }],
      {
        invocationState: state2,
      },
    );
    expect(done.stopReason).toBe("endTurn");
    const stored = history2.get("k") as Message[];
    expectConsistentTranscript(stored);
    expect(stored.map((m) => m.content[0]?.type)).toEqual(["text", "toolUse", "toolResult", "text"]);
    expect(resultTexts(stored)).toEqual(['answer "yes"']);
  });

  test("one hook instance shared by concurrent runs: no cross-talk", async () => {
    const hook = new HistoryHook("k", { enabled: true, policy: new HistoryPolicy({ keep: "masked" }) });
    const run = async (who: string) => {
      const state: Record<string, unknown> = {};
      const history = new MemoryHistoryExchange({
        k: [
          { role: "user", content: [{ type: "text", text: `${who} before` }] },
          { role: "assistant", content: [{ type: "text", text: "ok" }] },
        ],
      });
      state[HISTORY_EXCHANGE_KEY] = history;
      const agent = new Agent({
        model: new ScriptedModel({
          delayMs: 1,
          script: [{ toolCalls: [{ name: "fetch_page", input: { n: who.length } }] }, { text: `${who} done` }],
        }),
        tools: [bigTool()],
        hooks: [hook],
      });
      await agent.invoke(`${who} now`, { invocationState: state });
      return history.get("k") as Message[];
    };
    const [a, b] = await Promise.all([run("alice"), run("bob")]);
    const texts = (ms: Message[]) => ms.flatMap((m) => m.content.flatMap((c) => (c.type === "text" ? [c.text] : [])));
    expect(texts(a)).toEqual(["alice before", "ok", "alice now", "alice done"]);
    expect(texts(b)).toEqual(["bob before", "ok", "bob now", "bob done"]);
  });
});
