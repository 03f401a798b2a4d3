/**
 * Tool deadlines in the runner: each call has one (the tool's `timeoutMs`, else the agent's `toolTimeoutMs`,
 * 5 minutes by default); past it the call's signal aborts with a ToolTimeoutError and the model reads the
 * call's error. A callback that ignores its signal is abandoned `toolGraceMs` later: the run goes on, the
 * call is never started again, and its late result is still recorded in the ledger.
 */
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  AfterToolCallEvent,
  Agent,
  ScriptedModel,
  ToolTimeoutError,
  UserError,
  tool,
  type ToolResultBlock,
} from "../../../src/index.js";
import { DEFAULT_TOOL_GRACE_MS, DEFAULT_TOOL_TIMEOUT_MS } from "../../../src/agent/limits.js";
import { deferred } from "../helpers.js";

const resultText = (agent: Agent) =>
  agent.messages
    .flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"))
    .map((r) => ({ status: r.status, text: r.content.map((c) => (c.type === "text" ? c.text : "")).join("") }));

const twoTurns = () => new ScriptedModel({ script: [{ toolCalls: [{ name: "wire", input: {} }] }, { text: "done" }] });

describe("tool deadlines", () => {
  test("the defaults: 5 minutes a call, 5 s of grace", () => {
    expect([DEFAULT_TOOL_TIMEOUT_MS, DEFAULT_TOOL_GRACE_MS]).toEqual([300_000, 5_000]);
    const agent = new Agent({ model: twoTurns() });
    expect([agent.toolTimeoutMs, agent.toolGraceMs]).toEqual([300_000, 5_000]);
  });

  test("past a tool's timeoutMs its signal aborts with a ToolTimeoutError, and the model reads the error", async () => {
    let reason: unknown;
    const wire = tool({
      name: "wire",
      description: "",
      inputSchema: z.object({}),
      timeoutMs: 30,
      callback: (_, { signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => {
            reason = signal.reason;
            reject(signal.reason);
          }),
        ),
    });
    const agent = new Agent({ model: twoTurns(), tools: [wire] });
    const started = performance.now();
    const result = await agent.invoke("go");
    expect(result.stopReason).toBe("endTurn");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(reason).toBeInstanceOf(ToolTimeoutError);
    expect(reason).toMatchObject({ code: "TOOL_TIMEOUT", tool: "wire", timeoutMs: 30 });
    expect(resultText(agent)).toEqual([{ status: "error", text: expect.stringContaining("timed out after 30 ms") }]);
  });

  test("the agent's toolTimeoutMs is the deadline of a tool without its own", async () => {
    const wire = tool({
      name: "wire",
      description: "",
      inputSchema: z.object({}),
      callback: (_, { signal }) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    const agent = new Agent({ model: twoTurns(), tools: [wire], toolTimeoutMs: 20 });
    await agent.invoke("go");
    expect(resultText(agent)[0]?.text).toContain("timed out after 20 ms");
  });

  test("a callback that ignores its signal is abandoned after the grace; its late result is recorded, never run again", async () => {
    const late = deferred<string>();
    let runs = 0;
    let key = "";
    const wire = tool({
      name: "wire",
      description: "",
      inputSchema: z.object({}),
      timeoutMs: 20,
      callback: (_, context) => {
        runs++;
        key = context.idempotencyKey;
        return late.promise;
      },
    });
    const retry = {
      registerHooks: (r: Agent["hooks"]) =>
        r.addCallback(AfterToolCallEvent, (e) => {
          e.retry = true;
        }),
    };
    const agent = new Agent({ model: twoTurns(), tools: [wire], toolGraceMs: 30, hooks: [retry] });
    const result = await agent.invoke("go");
    expect(result.stopReason).toBe("endTurn");
    // A hook asking to retry does not start an abandoned call again.
    expect(runs).toBe(1);
    expect(resultText(agent)).toEqual([
      { status: "error", text: expect.stringMatching(/did not end after its timeout, and was abandoned.*unknown/) },
    ]);
    // Until the late result comes, the ledger keeps the call's claim marked as let go (its outcome unknown).
    expect(await agent.ledger.claim(key)).toMatchObject({
      status: "done",
      result: { structuredContent: { kaboo_abandoned: { at: expect.any(Number) } } },
    });
    late.resolve("sent 5 to bob");
    await new Promise((r) => setTimeout(r, 10));
    const recorded = await agent.ledger.claim(key);
    expect(recorded).toMatchObject({
      status: "done",
      result: { status: "success", content: [{ text: "sent 5 to bob" }] },
    });
  });

  test("timeoutMs and the agent's settings must be positive integers", () => {
    const make = (timeoutMs: number) =>
      tool({ name: "t", description: "", inputSchema: z.object({}), timeoutMs, callback: () => "" });
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => make(bad)).toThrow(UserError);
    expect(make(10).timeoutMs).toBe(10);
    expect(() => new Agent({ model: twoTurns(), toolTimeoutMs: 0 })).toThrow(UserError);
    expect(() => new Agent({ model: twoTurns(), toolGraceMs: -5 })).toThrow(UserError);
  });
});
