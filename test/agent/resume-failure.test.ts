// Finding: a resumed batch whose approved call ran, followed by a failure later in the same run
// (here: the model call after the batch throws), restores the *answered* interrupt state.
// Retrying the resume runs the approved call a second time, and the transcript holds the toolUse twice.
import { describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { Agent, BeforeToolCallEvent, ScriptedModel, tool } from "../../src/index.js";
import { transferTool } from "./helpers.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";

describe("resume then model error", () => {
  it("an approved call runs at most once even if the run fails after it ran", async () => {
    const { tool: transfer, sent } = transferTool();
    let calls = 0;
    const model = new ScriptedModel({
      ids: "sequential",
      script: () => {
        calls++;
        if (calls === 1) return { toolCalls: [{ name: "transfer", input: { to: "bob" } }] };
        if (calls === 2) return { error: new Error("network down") };
        return { text: "done" };
      },
    });
    const agent = new Agent({ model, tools: [transfer], hooks: [new InterruptHook(["transfer"])] });
    const r1 = await agent.invoke("pay bob");
    expect(r1.stopReason).toBe("interrupt");
    const answers = r1.interrupts.map((i) => ({
      interruptResponse: { interruptId: i.id, response: { approved: true } },
    }));
    await expect(agent.invoke(answers)).rejects.toThrow(/network down/);
    expect(sent).toHaveLength(1);
    // The agent is now stuck on an already-answered gate: a new message is refused ...
    let stuck = false;
    try {
      await agent.invoke("hello");
    } catch (e) {
      stuck = (e as { code?: string }).code === "PENDING_INTERRUPTS";
    }
    // ... and retrying the resume re-runs the transfer.
    try {
      await agent.invoke(answers);
    } catch {
      /* ignore */
    }
    const uses = agent.messages.flatMap((m) => m.content).filter((b) => b.type === "toolUse");
    expect({ stuck, transfers: sent.length, toolUses: uses.length }).toEqual({
      stuck: false,
      transfers: 1,
      toolUses: 1,
    });
  });
});

describe("a run that fails after it already completed a batch", () => {
  it("leaves no interrupt behind from the batch that failed", async () => {
    const t = tool({ name: "t", description: "x", inputSchema: z.object({ mode: z.string() }), callback: () => "ok" });
    const model = new ScriptedModel({
      ids: "sequential",
      script: [
        { toolCalls: [{ name: "t", input: { mode: "ok" } }] },
        {
          toolCalls: [
            { name: "t", input: { mode: "throw" } },
            { name: "t", input: { mode: "ask" } },
          ],
        },
      ],
    });
    const agent = new Agent({ model, tools: [t] });
    agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
      const mode = (e.toolUse.input as { mode: string }).mode;
      if (mode === "throw") throw new Error("hook failed");
      if (mode === "ask") e.interrupt({ name: "q" });
    });
    await expect(agent.invoke("go")).rejects.toThrow(/hook failed/);
    expect(agent.interruptState.activated).toBe(false);
    expect(agent.interruptState.interrupts.size).toBe(0);
    // And the agent takes new input.
    agent.model = new ScriptedModel({ script: [{ text: "fine" }] });
    expect((await agent.invoke("again")).stopReason).toBe("endTurn");
  });
});
