// The real Strands SDK (1.19.0, test/strands/node_modules) in Chromium: a Strands Agent with kabooPlugin and
// InterruptHook pauses before `pay`, resumes with the approval, and the call runs once.
import { expect, it } from "vitest";
import * as sdk from "@strands-agents/sdk";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { type Strands, bank } from "./strands-world.js";

it("a gated Strands call is approved in the browser and runs once", async () => {
  expect(navigator.userAgent).toMatch(/Chrome/);
  const strands = sdk as unknown as Strands;
  const input = { to: "bob", cents: 500 };
  const b = bank(strands, { name: "pay", toolUseId: "call_1", input });
  const agent = b.agent({ hooks: [new InterruptHook(["pay"])] });
  const paused = await agent.invoke("pay bob 5");
  expect(paused.stopReason).toBe("interrupt");
  expect(paused.interrupts?.[0]?.reason).toMatchObject({ kind: "tool_approval", tool: "pay", input });
  expect(b.paid).toEqual([]);
  const approval = { interruptId: paused.interrupts?.[0]?.id, response: { approved: true } };
  const done = await agent.invoke([{ interruptResponse: approval }]);
  expect(done.stopReason).toBe("endTurn");
  expect(b.paid).toEqual([input]);
  expect(done.lastMessage.content[0]?.text).toBe("done: paid bob");
});
