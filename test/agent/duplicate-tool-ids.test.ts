// Finding: tool-call ids are trusted to be unique. (a) Two gated calls with the same id in one
// response share ONE interrupt; the resume then fails context validation ("distinct ids") and the
// agent is stuck (every resume fails, every new message is PENDING_INTERRUPTS).
import { describe, expect, it } from "vitest";
import { Agent, ScriptedModel } from "../../src/index.js";
import { transferTool } from "./helpers.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";

function setup(script: ConstructorParameters<typeof ScriptedModel>[0]["script"]) {
  const { tool: transfer, sent } = transferTool();
  return {
    sent,
    make: () =>
      new Agent({ model: new ScriptedModel({ script }), tools: [transfer], hooks: [new InterruptHook(["transfer"])] }),
  };
}

describe("duplicate tool-call ids", () => {
  it("(a) same id twice in one response: the approval can be resumed (or the calls are refused), never stuck", async () => {
    const { make } = setup([
      {
        toolCalls: [
          { name: "transfer", input: { to: "a" }, id: "dup" },
          { name: "transfer", input: { to: "b" }, id: "dup" },
        ],
      },
      { text: "done" },
    ]);
    const agent = make();
    const r1 = await agent.invoke("pay");
    const answers = r1.interrupts.map((i) => ({
      interruptResponse: { interruptId: i.id, response: { approved: false } },
    }));
    let error: unknown;
    try {
      await agent.invoke(answers);
    } catch (e) {
      error = e;
    }
    expect(String(error ?? "")).toBe("");
  });

  it("(b) a server that reuses an id in a later turn: the second approved call runs too (not answered with the first's result)", async () => {
    const { sent, make } = setup(({ lastToolResults }) =>
      lastToolResults.length
        ? { text: "done" }
        : { toolCalls: [{ name: "transfer", input: { to: "bob" }, id: "call_0" }] },
    );
    const agent = make();
    for (let turn = 0; turn < 2; turn++) {
      const r = await agent.invoke(`pay bob (${turn})`);
      const answers = r.interrupts.map((i) => ({
        interruptResponse: { interruptId: i.id, response: { approved: true } },
      }));
      await agent.invoke(answers);
    }
    expect(sent).toEqual([{ to: "bob" }, { to: "bob" }]);
  });

  it("(c) the ids read before stay right when the transcript is cut, trimmed or replaced between turns", async () => {
    const { sent, make } = setup(({ lastToolResults }) =>
      lastToolResults.length
        ? { text: "done" }
        : { toolCalls: [{ name: "transfer", input: { to: "bob" }, id: "call_0" }] },
    );
    const agent = make();
    const pay = async (turn: number) => {
      const r = await agent.invoke(`pay bob (${turn})`);
      const answers = r.interrupts.map((i) => ({
        interruptResponse: { interruptId: i.id, response: { approved: true } },
      }));
      await agent.invoke(answers);
    };
    await pay(0);
    // Trimmed in place: the first turn's user message goes, its call stays (at another index).
    agent.messages.splice(0, 1);
    await pay(1);
    // Replaced by a copy (a reload): the ids are read from the new array.
    agent.messages = structuredClone(agent.messages);
    await pay(2);
    expect(sent).toEqual([{ to: "bob" }, { to: "bob" }, { to: "bob" }]);
    const ids = agent.messages.flatMap((m) => m.content.flatMap((b) => (b.type === "toolUse" ? [b.toolUseId] : [])));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
