import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  ScriptedModel,
  UserError,
  estimateTokens,
  tool,
  type AgentTool,
  type InvocationState,
  type Message,
  type ScriptedRequest,
  type ToolResultBlock,
} from "../../src/index.js";
import {
  CONTEXT_REPORT_KEY,
  ContextHook,
  DEFAULT_MIN_CHARS,
  InvalidPointerError,
  InvalidViewSpecError,
  ViewLoadError,
  type ContextReport,
  type ViewRequest,
} from "../../src/hooks/context-hook.js";
import { CONTEXT_ITEMS_KEY, RUN_ID_KEY, SHARED_STATE_KEY, THREAD_ID_KEY } from "../../src/agent/run-context.js";
import { capturingLogger } from "../fixtures/logger.js";

const logs = () => {
  const logger = capturingLogger();
  return { warns: logger.warns, logger };
};
const quiet = capturingLogger();

const noop = (name: string): AgentTool =>
  tool({ name, description: name, inputSchema: z.object({}), callback: () => "x" });
const delegate: AgentTool = { ...noop("helper"), kind: "agent" };

/** `turns` tool turns: assistant calls `names[i % names.length]`, user answers with a result of `size` chars. */
function transcript(turns: number, size: (i: number) => number, names = ["search"]): Message[] {
  const out: Message[] = [{ role: "user", content: [{ type: "text", text: "start" }] }];
  for (let i = 0; i < turns; i++) {
    const name = names[i % names.length] as string;
    out.push({ role: "assistant", content: [{ type: "toolUse", toolUseId: `t${i}`, name, input: {} }] });
    out.push({
      role: "user",
      content: [
        {
          type: "toolResult",
          toolUseId: `t${i}`,
          status: "success",
          content: [{ type: "text", text: "r".repeat(size(i)) }],
        },
      ],
    });
  }
  return out;
}

function capture(turns = 5) {
  const seen: ScriptedRequest[] = [];
  const model = new ScriptedModel({
    script: Array.from({ length: turns }, () => (r: ScriptedRequest) => (seen.push(r), { text: "ok" })),
  });
  return { seen, model };
}

/** Records what the middleware chain is given (the runner may hand it a copy of the transcript). */
function recordInput(agent: Agent): Message[][] {
  const inputs: Message[][] = [];
  agent.modelInput.use((input) => (inputs.push(input.messages), input));
  return inputs;
}

function results(messages: Message[]): ToolResultBlock[] {
  return messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
}
const text = (r: ToolResultBlock) => (r.content[0]?.type === "text" ? r.content[0].text : "");
const cleared = (r: ToolResultBlock) => text(r).startsWith("[Result of");

describe("installation", () => {
  test("installs once per agent on initialisation, even over many invocations", async () => {
    const hook = new ContextHook();
    const a = new Agent({ model: capture().model, hooks: [hook] });
    const b = new Agent({ model: capture().model, hooks: [hook] });
    expect(a.modelInput.size).toBe(0);
    await a.invoke("1");
    await a.invoke("2");
    await b.invoke("1");
    expect(a.modelInput.size).toBe(1);
    expect(b.modelInput.size).toBe(1);
  });

  test("a hook added after the agent initialised is installed at its next invocation and works", async () => {
    const { seen, model } = capture();
    const agent = new Agent({ model, messages: transcript(6, () => 5000) });
    await agent.invoke("first");
    agent.hooks.addHook(new ContextHook({ clearTrigger: 10, keepLast: 1 }));
    expect(agent.modelInput.size).toBe(0);
    await agent.invoke("second");
    expect(agent.modelInput.size).toBe(1);
    expect(results(seen[1]!.messages).filter(cleared)).toHaveLength(5);
  });

  test("bad options are caller errors", () => {
    expect(() => new ContextHook({ keepLast: -1 })).toThrow(UserError);
    expect(() => new ContextHook({ clearTrigger: 1.5 })).toThrow(UserError);
    expect(() => new ContextHook({ minChars: Number.NaN })).toThrow(UserError);
    expect(DEFAULT_MIN_CHARS).toBeGreaterThan(200);
  });
});

describe("clearing", () => {
  test("clears old results past the trigger and keeps recent, short, kept and delegate results", async () => {
    const { seen, model } = capture();
    const names = ["search", "read_policy", "helper", "search"];
    const messages = transcript(12, (i) => (i === 4 ? 50 : 3000), names);
    const agent = new Agent({
      model,
      tools: [noop("search"), noop("read_policy"), delegate],
      messages,
      systemPrompt: "sys",
    });
    const before = structuredClone(agent.messages);
    const reports: ContextReport[] = [];
    const hook = new ContextHook({
      clearTrigger: 1000,
      keepLast: 3,
      keepTools: ["read_policy"],
      onReport: (r) => reports.push(r),
    });
    const inputs = recordInput(agent);
    agent.hooks.addHook(hook);
    const st: InvocationState = {};
    await agent.invoke("next", { invocationState: st });
    const sent = seen[0]!.messages;
    const rs = results(sent);
    expect(rs).toHaveLength(12);
    rs.forEach((r, i) => {
      const name = names[i % names.length];
      const keep = i >= 9 || i === 4 || name === "read_policy" || name === "helper";
      expect(cleared(r), `result ${i} (${name})`).toBe(!keep);
      if (!keep) expect(text(r)).toMatch(new RegExp(`${name}.*3000 characters.*Call ${name} again`));
    });
    // Pairs intact: every toolUse keeps a result with its id, in the same places.
    expect(sent.map((m) => m.content.map((b) => b.type))).toEqual(
      before.map((m) => m.content.map((b) => b.type)).concat([["text"]]),
    );
    // The transcript is untouched; unchanged messages are shared, not copied.
    expect(agent.messages.slice(0, before.length)).toEqual(before);
    sent.forEach((m, i) => {
      const changed = m.content.some((b) => b.type === "toolResult" && cleared(b));
      expect(m === inputs[0]![i]).toBe(!changed);
    });
    const report = reports[0]!;
    expect(st[CONTEXT_REPORT_KEY]).toEqual(report);
    expect(report).toMatchObject({ cleared: 4, newlyCleared: 4, triggered: true, callIndex: 0 });
    const all = agent.messages.slice(0, sent.length);
    expect(report.inputTokens).toBe(estimateTokens("sys", sent));
    expect(report.tokensSaved).toBe(estimateTokens("sys", all) - estimateTokens("sys", sent));
  });

  test("nothing is cleared under the trigger, or with no trigger", async () => {
    for (const clearTrigger of [null, 1_000_000]) {
      const { seen, model } = capture();
      const agent = new Agent({ model, messages: transcript(8, () => 3000) });
      const inputs = recordInput(agent);
      agent.hooks.addHook(new ContextHook({ clearTrigger, keepLast: 0 }));
      await agent.invoke("next");
      expect(results(seen[0]!.messages).some(cleared)).toBe(false);
      for (const [i, m] of seen[0]!.messages.entries()) expect(m).toBe(inputs[0]![i]);
    }
  });

  test("later calls keep earlier placeholders identical and clear turns leaving the window", async () => {
    let call = 0;
    const seen: Message[][] = [];
    const model = new ScriptedModel({
      ids: "sequential",
      script: ({ messages }) => (
        seen.push(messages), call++ < 3 ? { toolCalls: [{ name: "search" }] } : { text: "done" }
      ),
    });
    const big = tool({ name: "search", description: "s", inputSchema: z.object({}), callback: () => "b".repeat(4000) });
    const reports: ContextReport[] = [];
    const agent = new Agent({
      model,
      tools: [big],
      messages: transcript(4, () => 4000),
      hooks: [new ContextHook({ clearTrigger: 100, keepLast: 2, onReport: (r) => reports.push(r) })],
    });
    await agent.invoke("go");
    expect(reports.map((r) => r.cleared)).toEqual([2, 3, 4, 5]);
    expect(reports.map((r) => r.newlyCleared)).toEqual([2, 1, 1, 1]);
    for (let c = 1; c < seen.length; c++) {
      const prev = results(seen[c - 1]!).filter(cleared);
      const now = results(seen[c]!).filter(cleared);
      for (const [i, p] of prev.entries()) expect(now[i]).toEqual(p);
    }
  });

  test("a replaced message is noticed: the cache rebuilds from it", async () => {
    const { seen, model } = capture();
    const agent = new Agent({
      model,
      messages: transcript(6, () => 3000),
      hooks: [new ContextHook({ clearTrigger: 100, keepLast: 1 })],
    });
    await agent.invoke("one");
    // Replace a cleared turn with a short result; it must now be sent as is.
    agent.messages[2] = {
      role: "user",
      content: [{ type: "toolResult", toolUseId: "t0", status: "success", content: [{ type: "text", text: "short" }] }],
    };
    await agent.invoke("two");
    expect(seen[1]!.messages[2]).toEqual(agent.messages[2]);
    expect(
      results(seen[1]!.messages)
        .filter(cleared)
        .map((r) => r.toolUseId),
    ).toEqual(["t1", "t2", "t3", "t4"]);
    // A shorter transcript (e.g. a history reset) is handled too.
    agent.messages.splice(3);
    await agent.invoke("three");
    expect(results(seen[2]!.messages)).toHaveLength(1);
  });

  test("property: clearing never breaks pairs, never mutates, and keeps what must stay", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4000 }), { maxLength: 12 }),
        fc.nat({ max: 4 }),
        fc.integer({ min: 0, max: 3000 }),
        async (sizes, keepLast, trigger) => {
          const { seen, model } = capture();
          const agent = new Agent({
            model,
            messages: transcript(sizes.length, (i) => sizes[i]!),
            hooks: [new ContextHook({ clearTrigger: trigger, keepLast, minChars: 500, logger: quiet })],
          });
          const before = structuredClone(agent.messages);
          await agent.invoke("q");
          expect(agent.messages.slice(0, before.length)).toEqual(before);
          const rs = results(seen[0]!.messages);
          expect(rs.map((r) => r.toolUseId)).toEqual(sizes.map((_, i) => `t${i}`));
          rs.forEach((r, i) => {
            if (sizes[i]! < 500 || i >= sizes.length - keepLast) expect(cleared(r)).toBe(false);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("context items, workspace and views", () => {
  test("items of other browser tools stay out; malformed items are logged", async () => {
    const { seen, model } = capture();
    const { warns, logger } = logs();
    const agent = new Agent({ model, hooks: [new ContextHook({ clientTools: ["canvas"], logger })] });
    const st: InvocationState = {
      [CONTEXT_ITEMS_KEY]: [
        { description: "tool:canvas Open document", value: "report.md" },
        { description: "tool:map Viewport", value: "Oslo" },
        { description: "User locale", value: "nb-NO" },
        { description: 7, value: "x" },
      ],
    };
    await agent.invoke("hi", { invocationState: st });
    const block = seen[0]!.messages.at(-1)!.content.at(-1)!;
    expect(block.type === "text" && block.text).toMatch(/Open document \(for tool canvas\): report.md/);
    expect(block.type === "text" && block.text).toMatch(/User locale: nb-NO/);
    expect(block.type === "text" && block.text).not.toMatch(/Oslo/);
    expect(warns.join()).toMatch(/1 malformed context item/);
    expect(agent.messages[0]!.content).toHaveLength(1); // the transcript's prompt is not changed
    await agent.invoke("again", { invocationState: { [CONTEXT_ITEMS_KEY]: "nope" } });
    expect(warns.join()).toMatch(/not an array/);
  });

  test("the rendered block never edits the array an earlier middleware handed over, when nothing was cleared", async () => {
    const { seen, model } = capture();
    const agent = new Agent({ model });
    // An earlier middleware that keeps (and reuses) the array it returns.
    const kept: Message[] = [];
    agent.modelInput.use((input) => {
      kept.length = 0;
      kept.push(...input.messages);
      return { ...input, messages: kept };
    });
    agent.hooks.addHook(new ContextHook());
    await agent.invoke("hi", {
      invocationState: { [CONTEXT_ITEMS_KEY]: [{ description: "User locale", value: "nb-NO" }] },
    });
    expect(seen[0]!.messages.at(-1)!.content).toHaveLength(2);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.content).toHaveLength(1);
    expect(kept[0]).toBe(agent.messages[0]);
  });

  test("workspace values are shown at every call; missing paths as absent", async () => {
    const { seen, model } = capture();
    const agent = new Agent({
      model,
      hooks: [new ContextHook({ workspace: ["/cart/items/0", "/a~1b", "/nope/deeper", "/cart/constructor", ""] })],
    });
    await agent.invoke("hi", {
      invocationState: { [SHARED_STATE_KEY]: { cart: { items: [{ sku: "x" }] }, "a/b": 2 } },
    });
    const block = seen[0]!.messages.at(-1)!.content.at(-1)!;
    const t = block.type === "text" ? block.text : "";
    expect(t).toContain('- /cart/items/0: {"sku":"x"}');
    expect(t).toContain("- /a~1b: 2");
    expect(t).toContain("- /nope/deeper: (absent)");
    expect(t).toContain("- /cart/constructor: (absent)");
    expect(t).toContain('(whole state): {"cart"');
  });

  test("malformed pointers are refused at construction; valid ones accepted", () => {
    for (const bad of ["cart", "/a~2", "/~", "#/a"])
      expect(() => new ContextHook({ workspace: [bad] })).toThrow(InvalidPointerError);
    fc.assert(
      fc.property(fc.array(fc.string()), (keys) => {
        const pointer = keys.map((k) => `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
        expect(() => new ContextHook({ workspace: [pointer] })).not.toThrow();
      }),
    );
  });

  test("views: base kept for the invocation, changes refreshed; throwing and garbage views are skipped", async () => {
    const seen: Message[][] = [];
    let call = 0;
    const model = new ScriptedModel({
      ids: "sequential",
      script: ({ messages }) => (
        seen.push(messages), call++ < 2 ? { toolCalls: [{ name: "search" }] } : { text: "done" }
      ),
    });
    const requests: ViewRequest[] = [];
    const { warns, logger } = logs();
    const editor = async (r: ViewRequest) => (
      requests.push(r), { base: `doc v${requests.length}`, changes: r.firstCall ? null : `edit ${requests.length}` }
    );
    const boom = () => {
      throw new Error("boom");
    };
    const garbage = () => ({ base: () => 1 }) as never;
    const agent = new Agent({
      model,
      tools: [noop("search")],
      hooks: [new ContextHook({ views: [editor, boom, garbage], logger })],
    });
    const st = { [THREAD_ID_KEY]: "th", [RUN_ID_KEY]: "run", [SHARED_STATE_KEY]: { a: 1 } };
    await agent.invoke("go", { invocationState: st });
    const texts = seen.map((m) => {
      const b = m.at(-1)!.content.at(-1)!;
      return b.type === "text" ? b.text : "";
    });
    expect(texts[0]).toContain("View editor:\nBase: doc v1");
    expect(texts[2]).toContain("Base: doc v1\nChanges since the base: edit 3");
    expect(requests.map((r) => r.firstCall)).toEqual([true, false, false]);
    expect(requests[0]).toMatchObject({ threadId: "th", runId: "run", state: { a: 1 } });
    expect(warns.filter((w) => /boom/.test(w))).toHaveLength(3);
    expect(warns.filter((w) => /not a View/.test(w))).toHaveLength(3);
    // A new invocation takes a new base.
    call = 0;
    await agent.invoke("again", { invocationState: {} });
    const last = seen.at(-3)!.at(-1)!.content.at(-1)!;
    expect(last.type === "text" && last.text).toContain("Base: doc v4");
  });

  test('view import specs: resolved at first use; with viewLoadFailure "warn" one that does not resolve is logged once and skipped', async () => {
    expect(() => new ContextHook({ views: ["mod#1bad"] })).toThrow(InvalidViewSpecError);
    expect(() => new ContextHook({ views: ["#x"] })).toThrow(InvalidViewSpecError);
    expect(() => new ContextHook({ views: [""] })).toThrow(InvalidViewSpecError);
    const moduleUrl = `data:text/javascript,${encodeURIComponent("export const v = (r) => ({ base: 'from import ' + r.firstCall });")}`;
    const { seen, model } = capture();
    const { warns, logger } = logs();
    const agent = new Agent({
      model,
      hooks: [
        new ContextHook({
          views: [`${moduleUrl}#v`, `${moduleUrl}#missing`, "kaboo-no-such-module#x"],
          viewLoadFailure: "warn",
          logger,
        }),
      ],
    });
    await agent.invoke("one");
    await agent.invoke("two");
    const block = seen[1]!.messages.at(-1)!.content.at(-1)!;
    expect(block.type === "text" && block.text).toContain("Base: from import true");
    expect(warns.filter((w) => /could not be loaded/.test(w))).toHaveLength(2);
    expect(warns.join()).toMatch(/no function export "missing"/);
  });

  test("view import specs in the spec's Python form \"module:name\" load and run, as MCPCallMetaHook's do", async () => {
    const moduleUrl = `data:text/javascript,${encodeURIComponent("export const cart = () => ({ base: 'two apples' });")}`;
    const { seen, model } = capture();
    const { warns, logger } = logs();
    const agent = new Agent({ model, hooks: [new ContextHook({ views: [`${moduleUrl}:cart`], logger })] });
    await agent.invoke("one");
    const block = seen[0]!.messages.at(-1)!.content.at(-1)!;
    expect(block.type === "text" && block.text).toContain("Base: two apples");
    expect(warns).toEqual([]);
  });

  test("a view that cannot be loaded fails loudly by default: ready() rejects and the run fails, naming the view", async () => {
    const missing = `data:text/javascript,${encodeURIComponent("export const other = () => null;")}:cart`;
    const hook = new ContextHook({ views: [missing], logger: quiet });
    await expect(hook.ready()).rejects.toThrow(ViewLoadError);
    await expect(hook.ready()).rejects.toThrow(/no function export "cart"/);
    const agent = new Agent({
      model: capture().model,
      hooks: [new ContextHook({ views: ["kaboo-no-such-module:view"], logger: quiet })],
    });
    await expect(agent.invoke("one")).rejects.toThrow(
      /View "kaboo-no-such-module:view": cannot import "kaboo-no-such-module"/,
    );
  });

  test("the block goes to a copy of the last user message, or a new one after an assistant message", async () => {
    const { seen, model } = capture();
    const agent = new Agent({
      model,
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: [{ type: "text", text: "a" }] },
      ],
      hooks: [new ContextHook({ workspace: ["/x"] })],
    });
    await agent.invoke(undefined as never, { invocationState: { [SHARED_STATE_KEY]: { x: 1 } } });
    const sent = seen[0]!.messages;
    expect(sent).toHaveLength(3);
    expect(sent[2]!.role).toBe("user");
    expect(agent.messages).toHaveLength(3); // the model's answer only
  });

  test("an onReport that throws is logged, not fatal", async () => {
    const { warns, logger } = logs();
    const agent = new Agent({
      model: capture().model,
      hooks: [
        new ContextHook({
          onReport: () => {
            throw new Error("meter");
          },
          logger,
        }),
      ],
    });
    await expect(agent.invoke("hi")).resolves.toMatchObject({ stopReason: "endTurn" });
    expect(warns.join()).toMatch(/meter/);
  });
});
