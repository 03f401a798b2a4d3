// A tool-requested approval is the gate's request (spec: "the same one the gate raises"): it offers
// the same scopes as an InterruptHook with the same `remember`, records the chosen scope, and a
// remembered grant for the tool and subject answers the next request without asking.
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { approvalDecisions, grantsFromDecisions } from "../../src/hooks/approval/run.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { ToolApprovalHook, type ToolDecision } from "../../src/hooks/tool-approval-hook.js";
import { Agent, ScriptedModel, tool, type JsonValue, UserError } from "../../src/index.js";
import { hostState } from "./host-state.js";

/** A service that asks for approval until it has been told of one, and counts the deploys it ran. */
function service() {
  const told = new Set<string>();
  const deployed: string[] = [];
  const deploy = tool({
    name: "deploy",
    description: "Deploy.",
    inputSchema: z.object({ env: z.string() }),
    callback: ({ env }) => {
      if (!told.has(env)) return { kaboo_approval: { requestId: `req-${env}`, subject: `env:${env}` } } as JsonValue;
      deployed.push(env);
      return "deployed";
    },
  });
  const onDecision = (d: ToolDecision) => {
    if (d.decision === "approved") told.add((d.input as { env: string }).env);
  };
  return { deploy, deployed, onDecision, told };
}

const model = () =>
  new ScriptedModel({
    ids: "sequential",
    script: ({ lastToolResults }) =>
      lastToolResults.length ? { text: "ok" } : { toolCalls: [{ name: "deploy", input: { env: "prod" } }] },
  });

describe("ToolApprovalHook scopes", () => {
  test("offers what the gate offers for the same remember, when the host remembers decisions", async () => {
    for (const remember of ["once", "thread", "always"] as const) {
      const svc = service();
      const toolAgent = new Agent({
        name: "ops",
        model: model(),
        tools: [svc.deploy],
        hooks: [new ToolApprovalHook({ agentName: "ops", remember, onDecision: svc.onDecision })],
      });
      const gateAgent = new Agent({
        name: "ops",
        model: model(),
        tools: [svc.deploy],
        hooks: [new InterruptHook([{ pattern: "deploy", remember }], { agentName: "ops" })],
      });
      for (const state of [() => hostState({ grants: [], publishes: true }), () => hostState({ publishes: true })]) {
        const fromTool = await toolAgent.invoke("go", { invocationState: state() });
        const fromGate = await gateAgent.invoke("go", { invocationState: state() });
        const scopes = (r: typeof fromTool) => (r.interrupts[0]!.reason as { scopes: string[] }).scopes;
        expect(scopes(fromTool)).toEqual(scopes(fromGate));
        toolAgent.interruptState.clear();
        gateAgent.interruptState.clear();
      }
    }
  });

  test("an 'always' answer is recorded as an always grant; with that grant the next request runs without asking, once", async () => {
    const svc = service();
    const decisions: ToolDecision[] = [];
    const hook = new ToolApprovalHook({
      agentName: "ops",
      remember: "always",
      onDecision: (d) => {
        decisions.push(d);
        svc.onDecision(d);
      },
    });
    const agent = new Agent({ name: "ops", model: model(), tools: [svc.deploy], hooks: [hook] });
    const r1 = await agent.invoke("deploy", { invocationState: hostState({ grants: [], publishes: true }) });
    expect((r1.interrupts[0]!.reason as { scopes: string[] }).scopes).toEqual(["once", "thread", "always"]);
    const resume = hostState({ grants: [], publishes: true });
    const r2 = await agent.invoke(
      [{ interruptResponse: { interruptId: r1.interrupts[0]!.id, response: { approved: true, scope: "always" } } }],
      { invocationState: resume },
    );
    expect(r2.stopReason).toBe("endTurn");
    expect(svc.deployed).toEqual(["prod"]);
    expect(decisions.map((d) => [d.decision, d.scope, d.remembered])).toEqual([["approved", "always", false]]);
    const { grants } = grantsFromDecisions({ decisions: approvalDecisions(resume), threadId: "t1" });
    expect(grants).toMatchObject([{ tool: "deploy", subjectKey: "env:prod", scope: "always" }]);

    // A later run that carries the grant: the service asks again (new request), the grant answers it.
    svc.told.clear();
    const now = Date.now();
    const r3 = await agent.invoke("deploy again", {
      invocationState: hostState({ grants: grants.map((g) => ({ ...g, grantedAt: now })), publishes: true }),
    });
    expect(r3.stopReason).toBe("endTurn");
    expect(r3.interrupts).toEqual([]);
    expect(svc.deployed).toEqual(["prod", "prod"]);
    expect(decisions.at(-1)).toMatchObject({
      decision: "approved",
      scope: "once",
      remembered: true,
      requestId: "req-prod",
    });
  });

  test("a scope wider than was shown is clamped, and a host that does not remember gets once only", async () => {
    const svc = service();
    const decisions: ToolDecision[] = [];
    const hook = new ToolApprovalHook({
      remember: "always",
      onDecision: (d) => (decisions.push(d), svc.onDecision(d)),
    });
    const agent = new Agent({ name: "ops", model: model(), tools: [svc.deploy], hooks: [hook] });
    const r1 = await agent.invoke("deploy", { invocationState: hostState({ publishes: true }) });
    expect((r1.interrupts[0]!.reason as { scopes: string[] }).scopes).toEqual(["once"]);
    const resume = hostState({ grants: [], publishes: true });
    await agent.invoke(
      [{ interruptResponse: { interruptId: r1.interrupts[0]!.id, response: { approved: true, scope: "always" } } }],
      {
        invocationState: resume,
      },
    );
    expect(decisions.map((d) => d.scope)).toEqual(["once"]);
    expect(approvalDecisions(resume).map((d) => d.scope)).toEqual(["once"]);
    expect(svc.deployed).toEqual(["prod"]);
  });

  test("an unknown remember is refused", () => {
    expect(() => new ToolApprovalHook({ remember: "forever" as never })).toThrow(UserError);
  });
});
