import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, ScriptedModel, tool, type JsonValue, UserError } from "../../src/index.js";
import { ToolApprovalHook, type ToolDecision } from "../../src/hooks/tool-approval-hook.js";
import type { ApprovalRequest } from "../../src/hooks/approval/request.js";
import { answer, silentLogger } from "./approval-fixtures.js";

/** A tool whose service asks for approval until it has been told of one. */
function deployService(
  reply: (approvedIds: Set<string>, input: { env: string }) => unknown = (ok) =>
    ok.has("req-1")
      ? "deployed"
      : {
          kaboo_approval: {
            requestId: "req-1",
            message: "Deploy to prod?",
            subject: { key: "env:prod", label: "prod deploys" },
          },
        },
) {
  const calls: { env: string }[] = [];
  const approved = new Set<string>();
  const deploy = tool({
    name: "deploy",
    description: "Deploy.",
    inputSchema: z.object({ env: z.enum(["staging", "prod"]) }),
    callback: (input) => {
      calls.push(input);
      return reply(approved, input) as JsonValue;
    },
  });
  return { deploy, calls, approved };
}

function agentWith(hook: ToolApprovalHook, deploy: ReturnType<typeof deployService>["deploy"]) {
  const model = new ScriptedModel({
    ids: "sequential",
    script: ({ lastToolResults }) =>
      lastToolResults.length
        ? { text: `done: ${JSON.stringify(lastToolResults[0]!.content)}` }
        : { toolCalls: [{ name: "deploy", input: { env: "prod" } }] },
  });
  return new Agent({ name: "ops", model, tools: [deploy], hooks: [hook] });
}

describe("ToolApprovalHook", () => {
  test("a kaboo_approval reply pauses the run with the gate's request plus the tool's request id; the model never sees it", async () => {
    const svc = deployService();
    const agent = agentWith(new ToolApprovalHook({ agentName: "ops" }), svc.deploy);
    const r = await agent.invoke("deploy prod");
    expect(r.stopReason).toBe("interrupt");
    expect(r.interrupts[0]!.id).toBe("tool:call_1:ops:kaboo_approval");
    expect(r.interrupts[0]!.reason as unknown as ApprovalRequest).toMatchObject({
      kind: "tool_approval",
      agent: "ops",
      tool: "deploy",
      toolUseId: "call_1",
      input: { env: "prod" },
      subject: { key: "env:prod", label: "prod deploys" },
      scopes: ["once"],
      message: "Deploy to prod?",
      requestId: "req-1",
    });
    expect(JSON.stringify(agent.messages)).not.toMatch(/kaboo_approval/);
  });

  test("approved: onDecision first, then the tool runs once more and its result reaches the model", async () => {
    const svc = deployService();
    const decisions: ToolDecision[] = [];
    const hook = new ToolApprovalHook({
      onDecision: async (d) => {
        decisions.push(d);
        if (d.decision === "approved" && d.requestId) svc.approved.add(d.requestId);
      },
    });
    const agent = agentWith(hook, svc.deploy);
    const r1 = await agent.invoke("deploy prod");
    const r2 = await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true })]);
    expect(svc.calls).toHaveLength(2);
    expect(decisions).toEqual([
      {
        decision: "approved",
        requestId: "req-1",
        tool: "deploy",
        toolUseId: "call_1",
        input: { env: "prod" },
        scope: "once",
        remembered: false,
      },
    ]);
    expect(r2.message.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("deployed") });
  });

  test("a tool that asks again after approval does not loop: the model reads that it still needs approval", async () => {
    const svc = deployService(() => ({ kaboo_approval: { requestId: "again" } }));
    const agent = agentWith(new ToolApprovalHook(), svc.deploy);
    const r1 = await agent.invoke("deploy prod");
    const r2 = await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true })]);
    expect(r2.stopReason).toBe("endTurn");
    expect(svc.calls).toHaveLength(2);
    expect(JSON.stringify(agent.messages)).toMatch(/still needs approval/);
  });

  test.each([
    [{ approved: false }, "denied"],
    [{ status: "cancelled" }, "skipped"],
    ["nonsense", "denied"],
  ])("answer %j: the tool is not called again and onDecision hears %s", async (response, decision) => {
    const svc = deployService();
    const decisions: ToolDecision[] = [];
    const agent = agentWith(new ToolApprovalHook({ onDecision: (d) => void decisions.push(d) }), svc.deploy);
    const r1 = await agent.invoke("deploy prod");
    await agent.invoke([answer(r1.interrupts[0]!.id, response)]);
    expect(svc.calls).toHaveLength(1);
    expect(decisions.map((d) => d.decision)).toEqual([decision]);
    expect(JSON.stringify(agent.messages)).toMatch(new RegExp(decision));
  });

  test("an answer after the tool's expiresAt is expired", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const svc = deployService(() => ({ kaboo_approval: { requestId: "r", expiresAt: "2026-01-01T00:01:00Z" } }));
    const agent = agentWith(new ToolApprovalHook({ now: () => now }), svc.deploy);
    const r1 = await agent.invoke("deploy prod");
    now += 120_000;
    await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true })]);
    expect(svc.calls).toHaveLength(1);
    expect(JSON.stringify(agent.messages)).toMatch(/expired/);
  });

  test("edited arguments are validated and used for the second call", async () => {
    const svc = deployService((ok, input) =>
      ok.size || input.env === "staging" ? `deployed ${input.env}` : { kaboo_approval: {} },
    );
    const agent = agentWith(new ToolApprovalHook({ onDecision: () => void svc.approved.add("x") }), svc.deploy);
    const r1 = await agent.invoke("deploy prod");
    await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true, editedArgs: { env: "staging" } })]);
    expect(svc.calls).toEqual([{ env: "prod" }, { env: "staging" }]);

    const svc2 = deployService();
    const agent2 = agentWith(new ToolApprovalHook(), svc2.deploy);
    const r2 = await agent2.invoke("deploy prod");
    await agent2.invoke([answer(r2.interrupts[0]!.id, { approved: true, editedArgs: { env: "moon" } })]);
    expect(svc2.calls).toHaveLength(1);
    expect(JSON.stringify(agent2.messages)).toMatch(/edited arguments/);
  });

  test("a malformed approval request still pauses (never a silent pass) and is reported", async () => {
    const svc = deployService(() => ({ kaboo_approval: 42 }));
    const log = silentLogger();
    const agent = agentWith(new ToolApprovalHook({ logger: log }), svc.deploy);
    const r = await agent.invoke("deploy prod");
    expect(r.stopReason).toBe("interrupt");
    expect(log.lines[0]?.message).toMatch(/malformed/);
  });

  test("ordinary results pass through untouched; text that is JSON with the key counts", async () => {
    const svc = deployService(() => JSON.stringify({ kaboo_approval: { requestId: "t" } }));
    const agent = agentWith(new ToolApprovalHook(), svc.deploy);
    expect((await agent.invoke("deploy prod")).stopReason).toBe("interrupt");
    const plain = deployService(() => ({ ok: true, note: "kaboo_approval in text is fine" }));
    const agent2 = agentWith(new ToolApprovalHook(), plain.deploy);
    expect((await agent2.invoke("deploy prod")).stopReason).toBe("endTurn");
  });

  test("onDecision must be a function", () => {
    expect(() => new ToolApprovalHook({ onDecision: "x" as never })).toThrow(UserError);
  });
});
