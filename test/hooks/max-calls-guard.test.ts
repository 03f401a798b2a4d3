import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  BeforeToolCallEvent,
  ScriptedModel,
  tool,
  type ScriptedTurn,
  type ToolResultBlock,
  UserError,
} from "../../src/index.js";
import { MaxToolCallsGuard } from "../../src/hooks/max-calls-guard.js";

function setup(script: ScriptedTurn[], maxCalls: number, extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  const ran: string[] = [];
  const ping = tool({
    name: "ping",
    description: "ping",
    inputSchema: z.object({ n: z.number() }),
    callback: ({ n }) => {
      ran.push(`ping${n}`);
      return `pong ${n}`;
    },
  });
  const model = new ScriptedModel({ script, ids: "sequential" });
  const agent = new Agent({ model, tools: [ping], hooks: [new MaxToolCallsGuard({ maxCalls })], ...extra });
  return { agent, ran, model };
}

const results = (agent: Agent): ToolResultBlock[] =>
  agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
const text = (r: ToolResultBlock) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");

describe("MaxToolCallsGuard", () => {
  test("3 concurrent calls with maxCalls 2: the third is cancelled with a stop-using-tools message", async () => {
    const { agent, ran } = setup(
      [{ toolCalls: [1, 2, 3].map((n) => ({ name: "ping", input: { n } })) }, { text: "final answer" }],
      2,
    );
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("endTurn");
    expect(ran.sort()).toEqual(["ping1", "ping2"]);
    const rs = results(agent);
    expect(rs.map((x) => x.status)).toEqual(["success", "success", "error"]);
    expect(text(rs[2]!)).toMatch(/Do not call any more tools.*final answer/s);
  });

  test("a later batch asking for a tool after the warning ends the loop (stopped)", async () => {
    const { agent, ran } = setup(
      [
        { toolCalls: [{ name: "ping", input: { n: 1 } }] },
        { toolCalls: [{ name: "ping", input: { n: 2 } }] },
        { toolCalls: [{ name: "ping", input: { n: 3 } }] },
        { text: "never reached" },
      ],
      1,
    );
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("stopped");
    expect(ran).toEqual(["ping1"]);
    const rs = results(agent);
    expect(rs).toHaveLength(3);
    expect(text(rs[1]!)).toMatch(/Do not call any more tools/);
    expect(text(rs[2]!)).toMatch(/run was stopped/);
    // Transcript consistent: every toolUse has its result.
    const uses = agent.messages.flatMap((m) => m.content.filter((b) => b.type === "toolUse"));
    expect(uses).toHaveLength(3);
  });

  test("the budget is per invocation", async () => {
    const { agent, ran } = setup(
      [
        { toolCalls: [{ name: "ping", input: { n: 1 } }] },
        { text: "a" },
        { toolCalls: [{ name: "ping", input: { n: 2 } }] },
        { text: "b" },
      ],
      1,
    );
    await agent.invoke("one");
    await agent.invoke("two");
    expect(ran).toEqual(["ping1", "ping2"]);
  });

  test("concurrent runs sharing one guard instance keep separate budgets", async () => {
    const guard = new MaxToolCallsGuard({ maxCalls: 1 });
    const make = () => {
      let ran = 0;
      const t = tool({ name: "ping", description: "p", inputSchema: z.object({}), callback: () => `pong ${++ran}` });
      const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "ping" }] }, { text: "done" }], delayMs: 1 });
      return { agent: new Agent({ model, tools: [t], hooks: [guard] }), count: () => ran };
    };
    const a = make();
    const b = make();
    const [ra, rb] = await Promise.all([a.agent.invoke("x"), b.agent.invoke("y")]);
    expect([ra.stopReason, rb.stopReason]).toEqual(["endTurn", "endTurn"]);
    expect([a.count(), b.count()]).toEqual([1, 1]);
  });

  test("a BeforeToolCall re-fired for the same toolUseId in one invocation is not counted again", async () => {
    const { agent } = setup([], 1);
    const state = {};
    const fire = async (id: string) => {
      const e = new BeforeToolCallEvent(
        agent,
        state,
        { type: "toolUse", toolUseId: id, name: "ping", input: { n: 1 } },
        agent.tool("ping"),
      );
      await agent.hooks.invoke(e);
      return e;
    };
    expect((await fire("a")).cancel).toBe(false);
    expect((await fire("a")).cancel).toBe(false); // same id: same decision, no new count
    const third = await fire("b");
    expect(third.cancel).toMatch(/limit reached/);
    const again = await fire("b");
    expect(again.cancel).toBe(third.cancel); // re-fire keeps the decision
    expect(Object.keys(state)).toEqual([]); // the counter is not an enumerable key of invocationState
  });

  test("resume: a fresh invocationState gives a fresh budget; the same one recognises the re-fired call", async () => {
    for (const shareState of [false, true]) {
      const { agent, ran } = setup(
        [
          {
            toolCalls: [
              { name: "ping", input: { n: 1 } },
              { name: "ping", input: { n: 2 } },
            ],
          },
          { text: "done" },
        ],
        2,
      );
      // An approval gate on call_2 pauses the batch after call_1 ran.
      agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
        if (e.toolUse.toolUseId === "call_2") e.interrupt({ name: "ok" });
      });
      const state = {};
      const r1 = await agent.invoke("go", { invocationState: state });
      expect(r1.stopReason).toBe("interrupt");
      const answers = r1.interrupts.map((i) => ({ interruptResponse: { interruptId: i.id, response: true } }));
      const r2 = await agent.invoke(answers, { invocationState: shareState ? state : {} });
      expect(r2.stopReason).toBe("endTurn");
      expect(ran).toEqual(["ping1", "ping2"]);
    }
  });

  test("maxCalls 0 allows no tool at all", async () => {
    const { agent, ran } = setup([{ toolCalls: [{ name: "ping", input: { n: 1 } }] }, { text: "ok" }], 0);
    await agent.invoke("go");
    expect(ran).toEqual([]);
  });

  test("default is 25", () => {
    expect(new MaxToolCallsGuard().maxCalls).toBe(25);
  });

  test("bad options are rejected with clear errors", () => {
    expect(() => new MaxToolCallsGuard(5 as never)).toThrow(UserError);
    expect(() => new MaxToolCallsGuard(5 as never)).toThrow(/\{ maxCalls: 10 \}/);
    expect(() => new MaxToolCallsGuard({ maxCalls: "3" as never })).toThrow(UserError);
    expect(() => new MaxToolCallsGuard({ maxCalls: -1 })).toThrow(UserError);
    expect(() => new MaxToolCallsGuard({ maxCalls: 1.5 })).toThrow(UserError);
    expect(() => new MaxToolCallsGuard({ maxCalls: Number.NaN })).toThrow(UserError);
  });
});
