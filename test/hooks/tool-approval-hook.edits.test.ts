// Finding: ToolApprovalHook's approve-with-edits runs the tool with the edited arguments, but
// (1) the transcript keeps the model's original arguments (the model does not see the call as it
// ran), and (2) when the same tool is also gated by InterruptHook with a subject, the edited call
// (new subject) is never re-gated: an approval for "transfers to bob" ends up paying mallory.
import { describe, expect, it } from "vitest";
import { Agent, ScriptedModel, type HookProvider, type JsonValue } from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { ToolApprovalHook } from "../../src/hooks/tool-approval-hook.js";
import { newBank, transferTool } from "../fixtures/bank.js";

/**
 * The shared bank's transfer, asking for approval in its own result on its first call (`request`,
 * ToolApprovalHook's protocol), under a model that pays bob 1 once; `paid` lists what really ran.
 */
function payBob(request: JsonValue, hooks: HookProvider[]) {
  const bank = newBank();
  let asked = false;
  const transfer = transferTool(bank, {
    instead: () => (asked ? undefined : ((asked = true), { kaboo_approval: request })),
    result: () => "paid",
  });
  const model = new ScriptedModel({
    ids: "sequential",
    script: ({ lastToolResults }) =>
      lastToolResults.length
        ? { text: "done" }
        : { toolCalls: [{ name: "transfer", input: { to: "bob", amount: 1 } }] },
  });
  return { agent: new Agent({ model, tools: [transfer], hooks }), paid: bank.transfers };
}

/** A gate asking once per payee (labelled with the payee's name). */
const payeeGate = (agentName?: string) =>
  new InterruptHook(
    [
      {
        pattern: "transfer",
        subject: (_, i) => ({ key: `to:${(i as { to: string }).to}`, label: (i as { to: string }).to }),
      },
    ],
    agentName === undefined ? {} : { agentName },
  );

describe("ToolApprovalHook edits", () => {
  it("gate first: an edit of a call the gate approved for other arguments is refused", async () => {
    const { agent, paid } = payBob({ requestId: "r1", message: "2FA?" }, [
      payeeGate("bank"),
      new ToolApprovalHook({ agentName: "bank" }),
    ]);
    const r1 = await agent.invoke("pay bob");
    expect(r1.interrupts.map((i) => i.id)).toEqual(["hook:beforeToolCall:call_1:bank:kaboo_approval"]);
    const r2 = await agent.invoke([
      { interruptResponse: { interruptId: r1.interrupts[0]!.id, response: { approved: true } } },
    ]);
    expect(r2.interrupts.map((i) => i.id)).toEqual(["tool:call_1:bank:kaboo_approval"]);
    const r3 = await agent.invoke([
      {
        interruptResponse: {
          interruptId: r2.interrupts[0]!.id,
          response: { approved: true, editedArgs: { to: "mallory", amount: 1 } },
        },
      },
    ]);
    // The gate approved "transfers to bob"; the edit would pay mallory: refused, not run.
    expect(r3.stopReason).toBe("endTurn");
    expect(paid).toEqual([]);
    expect(JSON.stringify(agent.messages)).toMatch(/approved for other arguments/);
  });
});

describe("ToolApprovalHook edits, hook registered before the gate", () => {
  it("an edit the gate's approval covers (the same arguments) runs once", async () => {
    const { agent, paid } = payBob({ requestId: "r1" }, [new ToolApprovalHook(), payeeGate()]);
    const r1 = await agent.invoke("pay bob");
    const r2 = await agent.invoke([
      { interruptResponse: { interruptId: r1.interrupts[0]!.id, response: { approved: true } } },
    ]);
    const r3 = await agent.invoke([
      {
        interruptResponse: {
          interruptId: r2.interrupts[0]!.id,
          response: { approved: true, editedArgs: { to: "bob", amount: 1 } },
        },
      },
    ]);
    expect(r3.stopReason).toBe("endTurn");
    expect(paid).toEqual([{ to: "bob", amount: 1 }]);
  });
});

describe("ToolApprovalHook edits without a gate", () => {
  it("the transcript records the edited call, as it ran", async () => {
    const { agent, paid } = payBob({}, [new ToolApprovalHook()]);
    const r1 = await agent.invoke("pay bob");
    await agent.invoke([
      {
        interruptResponse: {
          interruptId: r1.interrupts[0]!.id,
          response: { approved: true, editedArgs: { to: "carol", amount: 1 } },
        },
      },
    ]);
    expect(paid).toEqual([{ to: "carol", amount: 1 }]);
    const use = agent.messages.flatMap((m) => m.content).find((b) => b.type === "toolUse");
    expect(use).toMatchObject({ input: { to: "carol", amount: 1 } });
  });
});
