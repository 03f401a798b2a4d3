import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, BeforeToolCallEvent, HookError, ScriptedModel, tool } from "../../src/index.js";
import { deferred } from "./helpers.js";

describe("a failing call in a concurrent batch", () => {
  test("fails the run at once: a hanging sibling is cancelled, not awaited", async () => {
    let siblingSettled = false;
    const hangStarted = deferred();
    const hang = tool({
      name: "hang",
      description: "never returns",
      inputSchema: z.object({}),
      callback: (_i, ctx) =>
        new Promise((_, reject) => {
          hangStarted.resolve();
          ctx.signal.addEventListener("abort", () => {
            siblingSettled = true;
            reject(new Error("aborted"));
          });
        }),
    });
    const boom = tool({ name: "boom", description: "", inputSchema: z.object({}), callback: () => "never" });
    const model = new ScriptedModel({ script: [{ toolCalls: [{ name: "hang" }, { name: "boom" }] }] });
    const agent = new Agent({ model, tools: [hang, boom] });
    agent.hooks.addCallback(BeforeToolCallEvent, async (e) => {
      if (e.toolUse.name === "boom") {
        // The sibling is running (its claim and validation take their own time) before this fails.
        await hangStarted.promise;
        throw new Error("hook broke");
      }
    });
    const outcome = await Promise.race([
      agent.invoke("go").then(
        () => "finished",
        (e: unknown) => e,
      ),
      new Promise((r) => setTimeout(() => r("still waiting"), 2000)),
    ]);
    expect(outcome).toBeInstanceOf(HookError);
    expect(siblingSettled).toBe(true);
    expect(agent.running).toBe(false);
    // The failed batch leaves no toolUse without a result in the transcript.
    expect(agent.messages.flatMap((m) => m.content).some((b) => b.type === "toolUse")).toBe(false);
  });
});
