import { expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, ScriptedModel, tool, type ToolResultBlock } from "../../src/index.js";
import { agentAsTool } from "../../src/multiagent/index.js";

// A parent paused on a delegate's approval whose resume is cancelled closes the paused call
// (loop.ts) and clears its own interrupt state, but the delegate stays paused: every later call
// of that delegate fails with "pending interrupts", for the rest of the agent's life.
test("delegate: a cancelled resume of the parent does not leave the delegate stuck", async () => {
  const gated = tool({
    name: "pay",
    description: "p",
    inputSchema: z.object({}),
    callback: (_i, ctx) => `paid ${JSON.stringify(ctx.interrupt({ name: "approve" }))}`,
  });
  const childModel = new ScriptedModel({
    script: [
      { toolCalls: [{ name: "pay", input: {} }] },
      { text: "child done 1" },
      { text: "child answered the second task" },
    ],
  });
  const child = new Agent({ name: "child", model: childModel, tools: [gated] });
  const parentModel = new ScriptedModel({
    script: [
      { toolCalls: [{ name: "helper", input: { task: "pay the bill" } }] },
      { toolCalls: [{ name: "helper", input: { task: "just say hi" } }] },
      { text: "parent done" },
    ],
  });
  const parent = new Agent({
    name: "parent",
    model: parentModel,
    tools: [agentAsTool(child, { name: "helper", description: "h" })],
  });
  const r1 = await parent.invoke("go");
  expect(r1.stopReason).toBe("interrupt");
  const aborted = new AbortController();
  aborted.abort(new Error("user left"));
  const r2 = await parent.invoke(
    r1.interrupts.map((i) => ({ interruptResponse: { interruptId: i.id, response: true } })),
    { signal: aborted.signal },
  );
  expect(r2.stopReason).toBe("cancelled");
  expect(parent.interruptState.activated).toBe(false);
  const r3 = await parent.invoke("new task");
  const last = parent.messages
    .flatMap((m) => m.content)
    .filter((b): b is ToolResultBlock => b.type === "toolResult")
    .at(-1)!;
  console.log(r3.stopReason, JSON.stringify(last.content), "child activated:", child.interruptState.activated);
  expect(last.status).toBe("success");
});
