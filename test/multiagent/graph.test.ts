import { describe, expect, it } from "vitest";
import { AfterNodeCallEvent, BeforeNodeCallEvent, messageText, UserError } from "../../src/index.js";
import { MultiAgentStopGuard } from "../../src/hooks/stop-guard.js";
import { Graph, HandoffEvent, type MultiAgentStreamEvent } from "../../src/multiagent/index.js";
import { textAgent } from "./helpers.js";

describe("Graph", () => {
  it("runs a three-node graph with a conditional edge and a parallel branch", async () => {
    const inputs: Record<string, string[]> = { a: [], b: [], c: [], d: [] };
    const agent = (id: string, out: string) => textAgent(id, (input) => (inputs[id]?.push(input), out));
    const graph = new Graph({
      name: "g",
      nodes: { a: agent("a", "A-out"), b: agent("b", "B-out"), c: agent("c", "C-out"), d: agent("d", "D-out") },
      edges: [
        { from: "a", to: "b" },
        { from: "a", to: "c", condition: (s) => s.results.a?.result?.text === "A-out" },
        { from: "a", to: "d", condition: () => false },
        { from: "b", to: "d" },
      ],
    });
    const handoffs: string[] = [];
    graph.hooks.addCallback(HandoffEvent, (e) => handoffs.push(`${e.fromNodeIds.join("+")}>${e.toNodeIds.join("+")}`));
    const result = await graph.invoke("task");
    expect(result.status).toBe("completed");
    expect(result.executionOrder[0]).toBe("a");
    expect(new Set(result.executionOrder.slice(1, 3))).toEqual(new Set(["b", "c"]));
    expect(result.executionOrder).toEqual(expect.arrayContaining(["d"]));
    expect(result.results.c?.result?.text).toBe("C-out");
    expect(inputs.b?.[0]).toContain("[a]\nA-out");
    // d joins only b (the a->d condition failed): it gets b's output, not a's.
    expect(inputs.d?.[0]).toContain("[b]\nB-out");
    expect(inputs.d?.[0]).not.toContain("[a]");
    expect(handoffs).toEqual(expect.arrayContaining(["a>b", "a>c", "b>d"]));
  });

  it("skips a branch whose condition fails and waits at a join for all live branches", async () => {
    let cRunning = false;
    let dSawC = false;
    const graph = new Graph({
      name: "join",
      nodes: {
        a: textAgent("a", "x"),
        b: {
          execute: async () => {
            await new Promise((r) => setTimeout(r, 5));
            return "b";
          },
        },
        c: {
          execute: async () => {
            cRunning = true;
            await new Promise((r) => setTimeout(r, 20));
            cRunning = false;
            return "c";
          },
        },
        skip: textAgent("skip", "never"),
        d: {
          execute: () => {
            dSawC = !cRunning;
            return "d";
          },
        },
      },
      edges: [
        { from: "a", to: "b" },
        { from: "a", to: "c" },
        { from: "a", to: "skip", condition: () => false },
        { from: "b", to: "d" },
        { from: "c", to: "d" },
        { from: "skip", to: "d" },
      ],
    });
    const r = await graph.invoke("t");
    expect(r.status).toBe("completed");
    expect(r.results.skip).toBeUndefined();
    expect(dSawC).toBe(true);
    expect(r.executionOrder.at(-1)).toBe("d");
  });

  it("records a node that throws, finishes the other branches, keeps transcripts", async () => {
    const ok = textAgent("ok", "fine");
    const graph = new Graph({
      name: "g",
      nodes: {
        start: { execute: () => "go" },
        boom: {
          execute: () => {
            throw new Error("kaput");
          },
        },
        ok,
        after_boom: textAgent("after_boom", "unreached"),
      },
      edges: [
        { from: "start", to: "boom" },
        { from: "start", to: "ok" },
        { from: "boom", to: "after_boom" },
      ],
    });
    const r = await graph.invoke("t");
    expect(r.status).toBe("failed");
    expect(r.results.boom).toMatchObject({ status: "failed", error: "kaput" });
    expect(r.results.ok?.status).toBe("completed");
    expect(r.results.after_boom).toBeUndefined();
    expect(ok.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messageText(ok.messages[1])).toBe("fine");
  });

  it("cancelNode with a message fails that node with it", async () => {
    const graph = new Graph({
      name: "g",
      nodes: { a: textAgent("a", "A"), b: textAgent("b", "B") },
      edges: [{ from: "a", to: "b" }],
    });
    graph.hooks.addCallback(BeforeNodeCallEvent, (e) => {
      if (e.nodeId === "b") e.cancelNode = "B is not allowed today";
    });
    const stops: unknown[] = [];
    graph.hooks.addCallback(AfterNodeCallEvent, (e) => stops.push([e.nodeId, (e.error as Error | undefined)?.message]));
    const r = await graph.invoke("t");
    expect(r.results.b).toMatchObject({ status: "failed", error: "B is not allowed today" });
    expect(r.cancelledNodes).toEqual(["b"]);
    expect(r.status).toBe("cancelled");
    expect(stops).toContainEqual(["b", "B is not allowed today"]);
  });

  it("MultiAgentStopGuard: a stop between nodes prevents the next one", async () => {
    let stop = false;
    const graph = new Graph({
      name: "g",
      nodes: { a: textAgent("a", "A"), b: textAgent("b", "B"), c: textAgent("c", "C") },
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "c" },
      ],
      hooks: [new MultiAgentStopGuard(() => stop)],
    });
    graph.hooks.addCallback(AfterNodeCallEvent, (e) => {
      if (e.nodeId === "a") stop = true;
    });
    const r = await graph.invoke("t");
    expect(r.executionOrder).toEqual(["a", "b"]);
    expect(r.results.a?.status).toBe("completed");
    expect(r.results.b?.status).toBe("failed");
    expect(r.results.c).toBeUndefined();
    expect(r.cancelledNodes).toEqual(["b"]);
    expect(r.status).toBe("cancelled");
  });

  it("a node timeout fails the node; a total timeout fails the graph", async () => {
    const slow = {
      execute: (_: string, ctx: { signal: AbortSignal }) =>
        new Promise((r) => ctx.signal.addEventListener("abort", () => r("late"))),
    };
    const g1 = new Graph({ name: "g1", nodes: { slow, fast: { execute: () => "ok" } }, nodeTimeoutMs: 20 });
    const r1 = await g1.invoke("t");
    expect(r1.results.slow).toMatchObject({ status: "failed", error: expect.stringMatching(/timed out after 20 ms/) });
    expect(r1.results.fast?.status).toBe("completed");
    expect(r1.status).toBe("failed");
    const never = { execute: () => new Promise(() => undefined) };
    const g2 = new Graph({ name: "g2", nodes: { never }, totalTimeoutMs: 20 });
    const r2 = await g2.invoke("t");
    expect(r2.status).toBe("failed");
    expect(r2.reason).toMatch(/timed out after 20 ms/);
    expect(r2.results.never?.status).toBe("failed");
  });

  it("reports a graph that can never finish instead of hanging", async () => {
    const graph = new Graph({
      name: "stuck",
      nodes: { a: textAgent("a", "A"), b: textAgent("b", "B"), c: textAgent("c", "C") },
      edges: [
        { from: "a", to: "b" },
        { from: "a", to: "c" },
        { from: "b", to: "c" },
        { from: "c", to: "b" },
      ],
      maxNodeExecutions: 10,
    });
    const r = await graph.invoke("t");
    expect(r.status).toBe("failed");
    expect(r.reason).toMatch(/cannot finish.*"b".*"c"/);
    expect(r.executionOrder).toEqual(["a"]);
  });

  it("runs a feedback loop until its condition stops it, bounded by maxNodeExecutions", async () => {
    let drafts = 0;
    const graph = new Graph({
      name: "loop",
      nodes: {
        draft: { execute: () => `draft ${++drafts}` },
        review: { execute: (input: string) => (input.includes("draft 3") ? "ok" : "again") },
      },
      edges: [
        { from: "draft", to: "review" },
        { from: "review", to: "draft", condition: (s) => s.results.review?.result?.text === "again" },
      ],
      entryPoints: ["draft"],
      maxNodeExecutions: 20,
    });
    const r = await graph.invoke("t");
    expect(r.status).toBe("completed");
    expect(r.executionOrder).toEqual(["draft", "review", "draft", "review", "draft", "review"]);
    const bounded = new Graph({
      name: "inf",
      nodes: { x: { execute: () => "x" }, y: { execute: () => "y" } },
      edges: [
        { from: "x", to: "y" },
        { from: "y", to: "x" },
      ],
      entryPoints: ["x"],
      maxNodeExecutions: 5,
    });
    const r2 = await bounded.invoke("t");
    expect(r2.status).toBe("failed");
    expect(r2.executionOrder).toHaveLength(5);
    expect(r2.reason).toMatch(/maxNodeExecutions \(5\)/);
  });

  it("pauses on a BeforeNodeCall approval and resumes from JSON in a fresh graph", async () => {
    const make = () => {
      const runs: string[] = [];
      const g = new Graph({
        name: "g",
        nodes: { a: { execute: () => (runs.push("a"), "A") }, b: { execute: () => (runs.push("b"), "B") } },
        edges: [{ from: "a", to: "b" }],
      });
      g.hooks.addCallback(BeforeNodeCallEvent, (e) => {
        if (
          e.nodeId === "b" &&
          (e.interrupt({ name: "approve_node", reason: { node: "b" } }) as { ok: boolean }).ok !== true
        )
          e.cancelNode = "denied";
      });
      return { g, runs };
    };
    const first = make();
    const paused = await first.g.invoke("t");
    expect(paused.status).toBe("interrupted");
    expect(paused.interrupts.map((i) => i.id)).toEqual(["hook:beforeNodeCall:b:approve_node"]);
    const json = JSON.parse(JSON.stringify(first.g.interruptState));
    const second = make();
    second.g.interruptState = (await import("../../src/index.js")).InterruptState.fromJSON(json);
    const done = await second.g.invoke([
      { interruptResponse: { interruptId: "hook:beforeNodeCall:b:approve_node", response: { ok: true } } },
    ]);
    expect(done.status).toBe("completed");
    expect(second.runs).toEqual(["b"]);
    expect(done.executionOrder).toEqual(["a", "b"]);
    expect(second.g.interruptState.activated).toBe(false);
  });

  it("passes node events to onEvent with dot-path execution ids", async () => {
    const events: MultiAgentStreamEvent[] = [];
    const graph = new Graph({
      name: "research",
      nodes: { web: { execute: () => "w" }, sum: { execute: () => "s" } },
      edges: [{ from: "web", to: "sum" }],
      onEvent: (e) => events.push(e),
    });
    await graph.invoke("t");
    expect(events.map((e) => e.type)).toEqual([
      "multiagent_node_start",
      "multiagent_node_stop",
      "multiagent_handoff",
      "multiagent_node_start",
      "multiagent_node_stop",
    ]);
    expect(events[0]).toMatchObject({ executionId: "research.web" });
  });

  it("rejects bad definitions and bad resumes", async () => {
    expect(
      () => new Graph({ name: "g", nodes: { a: { execute: () => "" } }, edges: [{ from: "a", to: "zz" }] }),
    ).toThrow(UserError);
    expect(
      () =>
        new Graph({
          name: "g",
          nodes: { a: { execute: () => "" }, b: { execute: () => "" } },
          edges: [
            { from: "a", to: "b" },
            { from: "b", to: "a" },
          ],
          entryPoints: ["a"],
        }),
    ).toThrow(/maxNodeExecutions/);
    expect(() => new Graph({ name: "g", nodes: {} })).toThrow(UserError);
    expect(() => new Graph({ name: "g", nodes: { "a.b": { execute: () => "" } } })).toThrow(UserError);
    const g = new Graph({ name: "g", nodes: { a: { execute: () => "" } } });
    await expect(g.invoke([{ interruptResponse: { interruptId: "x", response: true } }])).rejects.toMatchObject({
      code: "UNKNOWN_INTERRUPT_ID",
    });
    await expect(g.invoke([{ bogus: 1 } as never])).rejects.toMatchObject({ code: "INVALID_PAYLOAD" });
  });
});

describe("publishing a graph's nodes", () => {
  it("each node agent's EventPublisher uses the node's dot path as its stream group, per graph run", async () => {
    const { EventPublisher } = await import("../../src/hooks/event-publisher.js");
    const { Agent, ScriptedModel } = await import("../../src/index.js");
    const { Graph } = await import("../../src/multiagent/index.js");
    const seen: { type: string; group: unknown }[] = [];
    const node = (name: string) =>
      new Agent({
        name,
        model: new ScriptedModel({ script: () => ({ text: `${name} says hi` }) }),
        hooks: [new EventPublisher((e) => void seen.push({ type: e.type, group: e.data.stream_group }), name)],
      });
    const graph = new Graph({
      name: "research",
      nodes: { web: node("web"), write: node("write") },
      edges: [{ from: "web", to: "write" }],
    });
    await graph.invoke("topic", { invocationState: { threadId: "t1" } });
    await graph.invoke("again", { invocationState: { threadId: "t1" } });
    const starts = seen.filter((e) => e.type === "stream_group_start").map((e) => e.group);
    expect(starts).toEqual(["research.web", "research.write", "research.web", "research.write"]);
    expect(seen.filter((e) => e.type === "stream_group_end")).toHaveLength(4);
  });
});
