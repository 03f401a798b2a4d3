import { verifyEvents, type BaseEvent } from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent, BeforeToolCallEvent, ScriptedModel, type HookProvider, type HookRegistry } from "../../src/index.js";
import { toAguiEvents } from "../../src/agui/index.js";
import { Graph, type MultiAgentStreamEvent } from "../../src/multiagent/index.js";

class AskFirst implements HookProvider {
  registerHooks(r: HookRegistry): void {
    r.addCallback(
      BeforeToolCallEvent,
      (e) => void e.interrupt({ name: "kaboo_approval", reason: { tool: e.toolUse.name } }),
    );
  }
}

const verify = (events: BaseEvent[]) => lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));

describe("AG-UI mapping", () => {
  it("a multi-agent run's stream (RUN_STARTED … SUBAGENT_* … RUN_FINISHED) passes verifyEvents", async () => {
    const orchestrator: MultiAgentStreamEvent[] = [];
    const graph = new Graph({
      name: "research",
      nodes: {
        web: { execute: () => "w" },
        bad: {
          execute: () => {
            throw new Error("down");
          },
        },
        sum: { execute: () => "s" },
      },
      edges: [
        { from: "web", to: "sum" },
        { from: "web", to: "bad" },
      ],
      onEvent: (e) => orchestrator.push(e),
    });
    const r = await graph.invoke("t");
    expect(r.status).toBe("failed");
    const events = [
      { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
      ...orchestrator.flatMap((e) => toAguiEvents(e, { now: () => 1 })),
      { type: "RUN_FINISHED", threadId: "t1", runId: "r1" },
    ] as BaseEvent[];
    const out = await verify(events);
    const types = out.map((e) => e.type);
    expect(types.filter((t) => t === "SUBAGENT_STARTED")).toHaveLength(3);
    expect(types).toContain("SUBAGENT_ERROR");
    expect(types).toContain("CUSTOM");
    expect(out.find((e) => e.type === "SUBAGENT_STARTED")).toMatchObject({
      subagentRunId: "research.web",
      name: "web",
    });
  });

  it("a node paused on an approval maps to SUBAGENT_FINISHED suspended; the graph resumes it", async () => {
    let runs = 0;
    const worker = new Agent({
      name: "worker",
      hooks: [new AskFirst()],
      tools: [
        {
          name: "act",
          spec: { name: "act", description: "acts", inputSchema: { type: "object" } },
          kind: "function",
          call: async () => (runs++, { status: "success", content: [{ type: "text", text: "acted" }] }),
        },
      ],
      model: new ScriptedModel({
        script: (q) =>
          q.lastToolResults.length ? { text: "worker done" } : { toolCalls: [{ name: "act", input: {}, id: "c1" }] },
      }),
    });
    const orchestrator: MultiAgentStreamEvent[] = [];
    const graph = new Graph({ name: "g", nodes: { worker }, onEvent: (e) => orchestrator.push(e) });
    const paused = await graph.invoke("do it");
    expect(paused.status).toBe("interrupted");
    expect(paused.interrupts.map((i) => i.id)).toEqual(["node:worker:hook:beforeToolCall:c1:kaboo_approval"]);
    const mapped = orchestrator.flatMap((e) => toAguiEvents(e));
    expect(mapped.at(-1)).toMatchObject({
      type: "SUBAGENT_FINISHED",
      outcome: { type: "suspended", interruptIds: ["node:worker:hook:beforeToolCall:c1:kaboo_approval"] },
    });
    await verify([
      { type: "RUN_STARTED", threadId: "t", runId: "r" },
      ...mapped,
      {
        type: "RUN_FINISHED",
        threadId: "t",
        runId: "r",
        outcome: { type: "interrupt", interrupts: [{ id: paused.interrupts[0]?.id, reason: "kaboo_approval" }] },
      },
    ] as BaseEvent[]);
    const done = await graph.invoke([
      { interruptResponse: { interruptId: paused.interrupts[0]?.id as string, response: { approved: true } } },
    ]);
    expect(done.status).toBe("completed");
    expect(done.results.worker?.result?.text).toBe("worker done");
    expect(runs).toBe(1);
    expect(done.executionOrder).toEqual(["worker"]);
  });
});
