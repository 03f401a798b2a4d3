// Finding: ToolApprovalHook's approve-with-edits runs the tool with the edited arguments, but
// (1) the transcript keeps the model's original arguments (the model does not see the call as it
// ran), and (2) when the same tool is also gated by InterruptHook with a subject, the edited call
// (new subject) is never re-gated: an approval for "transfers to bob" ends up paying mallory.
import { describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { Agent, ScriptedModel, tool, type JsonValue } from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { ToolApprovalHook } from "../../src/hooks/tool-approval-hook.js";

describe("ToolApprovalHook edits", () => {
  it("gate first: an edit of a call the gate approved for other arguments is refused", async () => {
    const paid: { to: string }[] = [];
    let asked = false;
    const transfer = tool({
      name: "transfer",
      description: "x",
      inputSchema: z.object({ to: z.string() }),
      callback: (input): JsonValue => {
        if (!asked) {
          asked = true;
          return { kaboo_approval: { requestId: "r1", message: "2FA?" } };
        }
        paid.push(input);
        return "paid";
      },
    });
    const gate = new InterruptHook(
      [
        {
          pattern: "transfer",
          subject: (_, i) => ({ key: `to:${(i as { to: string }).to}`, label: (i as { to: string }).to }),
        },
      ],
      { agentName: "bank" },
    );
    const model = new ScriptedModel({
      ids: "sequential",
      script: ({ lastToolResults }) =>
        lastToolResults.length ? { text: "done" } : { toolCalls: [{ name: "transfer", input: { to: "bob" } }] },
    });
    const agent = new Agent({ model, tools: [transfer], hooks: [gate, new ToolApprovalHook({ agentName: "bank" })] });
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
          response: { approved: true, editedArgs: { to: "mallory" } },
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
    const paid: { to: string }[] = [];
    let asked = false;
    const transfer = tool({
      name: "transfer",
      description: "x",
      inputSchema: z.object({ to: z.string() }),
      callback: (input): JsonValue => {
        if (!asked) {
          asked = true;
          return { kaboo_approval: { requestId: "r1" } };
        }
        paid.push(input);
        return "paid";
      },
    });
    const gate = new InterruptHook([
      {
        pattern: "transfer",
        subject: (_, i) => ({ key: `to:${(i as { to: string }).to}`, label: (i as { to: string }).to }),
      },
    ]);
    const model = new ScriptedModel({
      ids: "sequential",
      script: ({ lastToolResults }) =>
        lastToolResults.length ? { text: "done" } : { toolCalls: [{ name: "transfer", input: { to: "bob" } }] },
    });
    const agent = new Agent({ model, tools: [transfer], hooks: [new ToolApprovalHook(), gate] });
    const r1 = await agent.invoke("pay bob");
    const r2 = await agent.invoke([
      { interruptResponse: { interruptId: r1.interrupts[0]!.id, response: { approved: true } } },
    ]);
    const r3 = await agent.invoke([
      {
        interruptResponse: {
          interruptId: r2.interrupts[0]!.id,
          response: { approved: true, editedArgs: { to: "bob" } },
        },
      },
    ]);
    expect(r3.stopReason).toBe("endTurn");
    expect(paid).toEqual([{ to: "bob" }]);
  });
});

describe("ToolApprovalHook edits without a gate", () => {
  it("the transcript records the edited call, as it ran", async () => {
    const paid: { to: string }[] = [];
    let asked = false;
    const transfer = tool({
      name: "transfer",
      description: "x",
      inputSchema: z.object({ to: z.string() }),
      callback: (input): JsonValue => {
        if (!asked) {
          asked = true;
          return { kaboo_approval: {} };
        }
        paid.push(input);
        return "paid";
      },
    });
    const model = new ScriptedModel({
      ids: "sequential",
      script: ({ lastToolResults }) =>
        lastToolResults.length ? { text: "done" } : { toolCalls: [{ name: "transfer", input: { to: "bob" } }] },
    });
    const agent = new Agent({ model, tools: [transfer], hooks: [new ToolApprovalHook()] });
    const r1 = await agent.invoke("pay bob");
    await agent.invoke([
      {
        interruptResponse: {
          interruptId: r1.interrupts[0]!.id,
          response: { approved: true, editedArgs: { to: "carol" } },
        },
      },
    ]);
    expect(paid).toEqual([{ to: "carol" }]);
    const use = agent.messages.flatMap((m) => m.content).find((b) => b.type === "toolUse");
    expect(use).toMatchObject({ input: { to: "carol" } });
  });
});
