// ToolApprovalHook writes the same audit entries as the gate: the question the tool asked, the
// answer with its principal, and the call as the ledger recorded it.
import { expect, test } from "vitest";
import * as z from "zod/v4";
import { Agent, MemoryAuditLog, ScriptedModel, tool, verifyAuditTrail, type JsonValue } from "../../src/index.js";
import { ToolApprovalHook } from "../../src/hooks/tool-approval-hook.js";
import { auditKinds } from "../agent/audit-helpers.js";

test("a tool's own question, its answer and the call are in the trail", async () => {
  const approved = new Set<string>();
  const deploy = tool({
    name: "deploy",
    description: "Deploy.",
    inputSchema: z.object({ env: z.string() }),
    callback: (): JsonValue =>
      approved.size
        ? "deployed"
        : { kaboo_approval: { requestId: "req-1", subject: { key: "env:prod", label: "prod" } } },
  });
  const audit = new MemoryAuditLog();
  const model = new ScriptedModel({
    script: ({ lastToolResults }) =>
      lastToolResults.length ? { text: "done" } : { toolCalls: [{ name: "deploy", input: { env: "prod" }, id: "c1" }] },
  });
  const agent = new Agent({
    model,
    tools: [deploy],
    hooks: [new ToolApprovalHook({ onDecision: () => void approved.add("req-1") })],
    audit,
  });
  const state = (p: string) => ({ invocationState: { threadId: "th", kabooPrincipal: p } });
  const paused = await agent.invoke("deploy", state("ann"));
  const id = paused.interrupts[0]?.id ?? "";
  await agent.invoke([{ interruptResponse: { interruptId: id, response: { approved: true } } }], state("bob"));
  const entries = await audit.entries("th");
  expect(auditKinds(entries)).toEqual(["request", "decision:approved", "execution:claimed"]);
  expect(entries[0]).toMatchObject({ interruptId: id, tool: "deploy", principal: "ann", subject: { key: "env:prod" } });
  expect(entries[1]).toMatchObject({ interruptId: id, principal: "bob", scope: "once" });
  expect(entries[2]).toMatchObject({ status: "success" });
  expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true, count: 3 });
});
