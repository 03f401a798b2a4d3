import { expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, ScriptedModel, tool } from "../../src/index.js";
import { StopGuard } from "../../src/hooks/stop-guard.js";

// A stop requested in a batch where another call pauses (approval inside a tool) is lost:
// the run pauses instead of stopping, and the resume calls the model again.
test("StopGuard: a stop decided in a batch that also pauses survives the resume", async () => {
  let modelCalls = 0;
  const gated = tool({
    name: "gated",
    description: "g",
    inputSchema: z.object({}),
    callback: (_i, ctx) => {
      const ok = ctx.interrupt({ name: "approve", reason: "ok?" });
      return `approved ${JSON.stringify(ok)}`;
    },
  });
  let n = 0;
  const other = tool({ name: "other", description: "o", inputSchema: z.object({}), callback: () => "other ran" });
  const model = new ScriptedModel({
    script: [
      () => {
        modelCalls++;
        return {
          toolCalls: [
            { name: "gated", input: {} },
            { name: "other", input: {} },
          ],
        };
      },
      () => {
        modelCalls++;
        return { text: "model called again after stop" };
      },
    ],
  });
  // stop is requested when the second call of the batch is checked (e.g. the user pressed Stop)
  let stopRequested = false;
  const agent = new Agent({
    model,
    tools: [gated, other],
    hooks: [
      new StopGuard(() => {
        n++;
        if (n === 2) stopRequested = true;
        return stopRequested;
      }),
    ],
  });
  const r1 = await agent.invoke("go");
  expect(stopRequested).toBe(true);
  // the run paused although a stop was requested
  console.log("first stopReason:", r1.stopReason);
  stopRequested = false; // a new request: the stop belonged to the first one
  const r2 = await agent.invoke(
    r1.interrupts.map((i) => ({ interruptResponse: { interruptId: i.id, response: true } })),
  );
  console.log("second stopReason:", r2.stopReason, "modelCalls:", modelCalls);
  expect(r1.stopReason === "stopped" || r2.stopReason === "stopped").toBe(true);
  expect(modelCalls).toBe(1);
});
