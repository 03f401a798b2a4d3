import { describe, expect, it } from "vitest";
import { UserError } from "../../src/index.js";
import { HandoffEvent, Swarm } from "../../src/multiagent/index.js";
import { scriptedAgent } from "./helpers.js";

const handoff = (agent_name: string, message: string, context?: object) => ({
  toolCalls: [{ name: "handoff_to_agent", input: { agent_name, message, ...(context ? { context } : {}) } }],
});

describe("Swarm", () => {
  it("completes after two handoffs, passing message and shared context", async () => {
    const triage = scriptedAgent("triage", [handoff("billing", "invoice issue", { customer: "c1" })]);
    const billing = scriptedAgent("billing", [handoff("writer", "refund approved")]);
    const writer = scriptedAgent("writer", [{ text: "Dear customer, refunded." }]);
    const swarm = new Swarm({ name: "support", agents: [triage, billing, writer] });
    const seen: string[] = [];
    swarm.hooks.addCallback(HandoffEvent, (e) => seen.push(`${e.fromNodeIds[0]}>${e.toNodeIds[0]}:${e.message}`));
    const r = await swarm.invoke("My invoice is wrong");
    expect(r.status).toBe("completed");
    expect(r.executionOrder).toEqual(["triage", "billing", "writer"]);
    expect(r.handoffs).toEqual([
      { from: "triage", to: "billing", message: "invoice issue" },
      { from: "billing", to: "writer", message: "refund approved" },
    ]);
    expect(seen).toEqual(["triage>billing:invoice issue", "billing>writer:refund approved"]);
    expect(r.sharedContext).toEqual({ customer: "c1" });
    expect(r.results.writer?.result?.text).toBe("Dear customer, refunded.");
    const writerInput = writer.messages[0]?.content[0];
    expect(writerInput).toMatchObject({ type: "text", text: expect.stringContaining("refund approved") });
    expect((writerInput as { text: string }).text).toContain('"customer":"c1"');
    // The handing agent's turn ended with its handoff: no second model call.
    expect(triage.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("stops a ping-pong at its limit with status failed", async () => {
    const a = scriptedAgent(
      "a",
      Array.from({ length: 10 }, () => handoff("b", "yours")),
    );
    const b = scriptedAgent(
      "b",
      Array.from({ length: 10 }, () => handoff("a", "no, yours")),
    );
    const swarm = new Swarm({ name: "pp", agents: [a, b], maxPingPong: 3 });
    const r = await swarm.invoke("t");
    expect(r.status).toBe("failed");
    expect(r.reason).toMatch(/Ping-pong/);
    expect(r.handoffs).toHaveLength(4);
  });

  it("enforces maxHandoffs and maxIterations", async () => {
    const mk = () => [
      scriptedAgent("a", [handoff("b", "1"), handoff("c", "4")]),
      scriptedAgent("b", [handoff("c", "2")]),
      scriptedAgent("c", [handoff("a", "3"), { text: "done" }]),
    ];
    const r1 = await new Swarm({ name: "s", agents: mk(), maxHandoffs: 2 }).invoke("t");
    expect(r1).toMatchObject({ status: "failed", reason: expect.stringMatching(/maxHandoffs \(2\)/) });
    const r2 = await new Swarm({ name: "s", agents: mk(), maxIterations: 3 }).invoke("t");
    expect(r2).toMatchObject({ status: "failed", reason: expect.stringMatching(/maxIterations \(3\)/) });
    const r3 = await new Swarm({ name: "s", agents: mk() }).invoke("t");
    expect(r3.status).toBe("completed");
    expect(r3.executionOrder).toEqual(["a", "b", "c", "a", "c"]);
  });

  it("refuses a handoff to an unknown agent (the model reads an error) and bad definitions", async () => {
    const a = scriptedAgent("a", [handoff("ghost", "x"), { text: "ok then" }]);
    const r = await new Swarm({ name: "s", agents: [a, scriptedAgent("b", [])] }).invoke("t");
    expect(r.status).toBe("completed");
    expect(JSON.stringify(a.messages[2])).toContain("Unknown agent");
    expect(() => new Swarm({ name: "s", agents: [] })).toThrow(UserError);
    expect(() => new Swarm({ name: "s", agents: [scriptedAgent("a", [])], entry: "zz" })).toThrow(UserError);
    expect(() => new Swarm({ name: "s", agents: [scriptedAgent("a", [])], maxHandoffs: 0 })).toThrow(UserError);
  });
});
