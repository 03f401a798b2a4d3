import { describe, expect, test, vi } from "vitest";
import * as z from "zod/v4";
import {
  AfterInvocationEvent,
  Agent,
  BeforeNodeCallEvent,
  HookRegistry,
  InterruptState,
  ScriptedModel,
  tool,
  type Orchestrator,
  type ToolResultBlock,
  UserError,
} from "../../src/index.js";
import { MultiAgentStopGuard, StopGuard, stopGuardFromSignal } from "../../src/hooks/stop-guard.js";
import { capturingLogger } from "../fixtures/logger.js";

function setup(hooks: ConstructorParameters<typeof Agent>[0]["hooks"], onRun?: () => void) {
  const ran: number[] = [];
  const step = tool({
    name: "step",
    description: "step",
    inputSchema: z.object({ n: z.number() }),
    callback: ({ n }) => {
      ran.push(n);
      onRun?.();
      return `did ${n}`;
    },
  });
  const model = new ScriptedModel({
    script: [
      { toolCalls: [{ name: "step", input: { n: 1 } }] },
      { toolCalls: [{ name: "step", input: { n: 2 } }] },
      { toolCalls: [{ name: "step", input: { n: 3 } }] },
      { text: "done" },
    ],
  });
  const agent = new Agent({ model, tools: [step], hooks: hooks ?? [] });
  let afterInvocation = 0;
  agent.hooks.addCallback(AfterInvocationEvent, () => void afterInvocation++);
  return { agent, ran, model, afterInvocations: () => afterInvocation };
}

const results = (agent: Agent) =>
  agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));

describe("StopGuard", () => {
  test("stops at the next tool call once stopCheck is true; transcript consistent, AfterInvocation fired", async () => {
    let stop = false;
    const { agent, ran, afterInvocations } = setup([new StopGuard(() => stop)], () => (stop = true));
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("stopped");
    expect(ran).toEqual([1]);
    const rs = results(agent);
    expect(rs.map((x) => x.status)).toEqual(["success", "error"]);
    expect(rs[1]!.content).toEqual([
      { type: "text", text: 'The run was stopped on request; the tool "step" was not run.' },
    ]);
    const uses = agent.messages.flatMap((m) => m.content.filter((b) => b.type === "toolUse"));
    expect(uses).toHaveLength(rs.length);
    expect(afterInvocations()).toBe(1);
  });

  test("does nothing while stopCheck is false", async () => {
    const { agent, ran } = setup([new StopGuard(() => false)]);
    expect((await agent.invoke("go")).stopReason).toBe("endTurn");
    expect(ran).toEqual([1, 2, 3]);
  });

  test("an async stopCheck is awaited", async () => {
    const { agent, ran } = setup([new StopGuard(async () => true)]);
    expect((await agent.invoke("go")).stopReason).toBe("stopped");
    expect(ran).toEqual([]);
  });

  test("a stopCheck that throws is treated as stop and logged", async () => {
    const logger = capturingLogger();
    const { agent, ran } = setup([
      new StopGuard(
        () => {
          throw new Error("flag store unreachable");
        },
        { logger },
      ),
    ]);
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("stopped");
    expect(ran).toEqual([]);
    expect(logger.warns).toHaveLength(1);
    expect(logger.warns[0]).toMatch(/stopCheck threw/);
    expect(logger.lines.find((l) => l.level === "warn")!.data).toMatchObject({
      error: "flag store unreachable",
      tool: "step",
    });
  });

  test("the default logger is console.warn", async () => {
    const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { agent } = setup([
      new StopGuard(() => {
        throw new Error("x");
      }),
    ]);
    await agent.invoke("go");
    expect(spy).toHaveBeenCalledWith(
      expect.stringMatching(/StopGuard: stopCheck threw/),
      expect.objectContaining({ error: "x" }),
    );
    spy.mockRestore();
  });

  test("a non-callable stopCheck is a UserError naming it", () => {
    expect(() => new StopGuard(true as never)).toThrow(UserError);
    expect(() => new StopGuard(undefined as never)).toThrow(/StopGuard: stopCheck must be a function/);
    expect(() => new MultiAgentStopGuard(null as never)).toThrow(
      /MultiAgentStopGuard: stopCheck must be a function.*null/,
    );
  });
});

describe("MultiAgentStopGuard", () => {
  const orchestrator: Orchestrator = { name: "graph", interruptState: new InterruptState() };

  test("sets cancelNode on BeforeNodeCallEvent when stopCheck is true", async () => {
    let stop = false;
    const registry = new HookRegistry();
    registry.addHook(new MultiAgentStopGuard(() => stop));
    const first = await registry.invoke(new BeforeNodeCallEvent(orchestrator, {}, "research"));
    expect(first.cancelNode).toBe(false);
    stop = true;
    const second = await registry.invoke(new BeforeNodeCallEvent(orchestrator, {}, "write"));
    expect(second.cancelNode).toMatch(/node "write" was not run/);
  });

  test("a throwing stopCheck cancels the node and is logged", async () => {
    const logger = capturingLogger();
    const registry = new HookRegistry();
    registry.addHook(
      new MultiAgentStopGuard(
        () => {
          throw new Error("boom");
        },
        { logger },
      ),
    );
    const e = await registry.invoke(new BeforeNodeCallEvent(orchestrator, {}, "n1"));
    expect(e.cancelNode).not.toBe(false);
    expect(logger.lines.find((l) => l.level === "warn")!.data).toMatchObject({
      orchestrator: "graph",
      nodeId: "n1",
      error: "boom",
    });
  });
});

describe("stopGuardFromSignal", () => {
  test("controller.abort() stops the agent at the next tool call", async () => {
    const { guard, controller } = stopGuardFromSignal();
    const { agent, ran } = setup([guard], () => controller.abort());
    expect((await agent.invoke("go")).stopReason).toBe("stopped");
    expect(ran).toEqual([1]);
  });

  test("wrapping a given signal: its abort stops the guard and aborts the controller with the same reason", async () => {
    const outer = new AbortController();
    const { guard, controller } = stopGuardFromSignal(outer.signal);
    expect(controller).toBeInstanceOf(AbortController);
    const { agent, ran } = setup([guard], () => outer.abort("client left"));
    expect((await agent.invoke("go")).stopReason).toBe("stopped");
    expect(ran).toEqual([1]);
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe("client left");
  });

  test("aborting the controller never aborts the given signal", () => {
    const outer = new AbortController();
    const { controller } = stopGuardFromSignal(outer.signal);
    controller.abort();
    expect(outer.signal.aborted).toBe(false);
  });

  test("an already-aborted signal stops before the first tool", async () => {
    const { guard, controller } = stopGuardFromSignal(AbortSignal.abort("gone"));
    expect(controller.signal.aborted).toBe(true);
    const { agent, ran } = setup([guard]);
    expect((await agent.invoke("go")).stopReason).toBe("stopped");
    expect(ran).toEqual([]);
  });

  test("a non-signal argument is a UserError", () => {
    expect(() => stopGuardFromSignal({ aborted: true } as never)).toThrow(/signal must be an AbortSignal/);
  });
});
