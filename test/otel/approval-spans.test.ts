// Approvals on the trace, with the real OpenTelemetry trace SDK: every gated call has its execute_tool span,
// asked, approved, denied, expired, granted or under four eyes, with who answered and what the ledger said;
// the run that resumes links to the span that asked, also when the paused session went through JSON.
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, test } from "vitest";
import type { GateRule } from "../../src/hooks/interrupt-hook.js";
import { sha256Hex } from "../../src/agent/shared/sha256.js";
import { approvalAttrs, calls, runs, thread, toRecipient } from "./bank-thread.js";
import { tracing } from "./trace-fixtures.js";

describe("approvals on execute_tool spans", () => {
  test("paused then approved: the asking run's span says asked; the resuming run's says approved, by whom, ran once, and links to it", async () => {
    const t = tracing();
    const th = thread(t);
    const asked = await th.ask();
    expect(asked.stopReason).toBe("interrupt");
    const [askSpan] = calls(t);
    const interruptId = "hook:beforeToolCall:c1:kaboo_approval";
    expect(approvalAttrs(askSpan)).toEqual({
      "kaboo.approval.decision": "asked",
      "kaboo.approval.interrupt_id": interruptId,
      "kaboo.approval.rule": "transfer",
      "kaboo.approval.subject": "to:eve",
      "kaboo.approval.required": 1,
    });
    expect(askSpan?.events.map((e) => e.name)).toEqual(["kaboo.approval.asked"]);
    expect(runs(t)[0]?.attributes).toMatchObject({ "kaboo.run.stop_reason": "interrupt", "kaboo.run.interrupts": 1 });

    await th.answer("bob", { approved: true, scope: "once" });
    expect(th.sent).toEqual([{ to: "eve" }]);
    const [, ranSpan] = calls(t);
    expect(approvalAttrs(ranSpan)).toEqual({
      "kaboo.approval.decision": "approved",
      "kaboo.approval.interrupt_id": interruptId,
      "kaboo.approval.scope": "once",
      "kaboo.approval.principal": "bob",
      "kaboo.ledger.answer": "ran",
    });
    expect(ranSpan?.events.map((e) => e.name)).toEqual(["kaboo.approval.decided", "kaboo.ledger.answered"]);
    // One trace view from "asked" to "ran": the resumed call and run link to the span that asked.
    const askedAt = askSpan?.spanContext();
    expect(ranSpan?.links.map((l) => l.context.spanId)).toEqual([askedAt?.spanId]);
    expect(ranSpan?.links[0]?.attributes).toEqual({ "kaboo.approval.interrupt_id": interruptId });
    const resumed = runs(t)[1];
    expect(resumed?.attributes["kaboo.run.resuming"]).toBe(true);
    expect(resumed?.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
      [askedAt?.traceId, askedAt?.spanId],
    ]);
  });

  test("denied: the call's span exists, says denied and cancelled, and the ledger never ran it", async () => {
    const t = tracing();
    const th = thread(t);
    await th.ask();
    await th.answer("bob", { approved: false });
    expect(th.sent).toEqual([]);
    const [, denied] = calls(t);
    expect(approvalAttrs(denied)).toEqual({
      "kaboo.approval.decision": "denied",
      "kaboo.approval.interrupt_id": "hook:beforeToolCall:c1:kaboo_approval",
      "kaboo.approval.scope": "once",
      "kaboo.approval.principal": "bob",
      "kaboo.tool.cancelled": true,
    });
    expect(denied?.status.code).toBe(SpanStatusCode.UNSET);
  });

  test("expired: an answer after the deadline does not run the call, and the span says so", async () => {
    let now = 1_000_000;
    const t = tracing();
    const th = thread(t, { ttlSeconds: 60, now: () => now });
    await th.ask();
    expect(calls(t)[0]?.attributes["kaboo.approval.expires_at"]).toBe(new Date(1_060_000).toISOString());
    now += 61_000;
    await th.answer("bob", { approved: true });
    expect(th.sent).toEqual([]);
    expect(calls(t)[1]?.attributes).toMatchObject({
      "kaboo.approval.decision": "expired",
      "kaboo.tool.cancelled": true,
    });
  });

  test("a remembered grant: granted, with the grant's id and whose it is, and the ledger ran it", async () => {
    const t = tracing({ principals: "sha256" });
    const th = thread(t, { gate: { pattern: "transfer", subject: toRecipient, remember: "always" } });
    const grant = { tool: "transfer", scope: "always", subjectKey: "to:eve", principal: "ann", grantedAt: 1 };
    const { SessionExchange } = await import("../../src/agent/interrupts/session.js");
    const exchange = new SessionExchange(undefined, false, { warn() {}, error() {} });
    exchange.publishesApprovals = true;
    const r = await th.ask("ann", { forwardedProps: { kaboo_grants: [grant] }, kabooSessionExchange: exchange });
    expect(r.stopReason).toBe("endTurn");
    expect(th.sent).toEqual([{ to: "eve" }]);
    const attrs = approvalAttrs(calls(t)[0]);
    expect(attrs).toMatchObject({
      "kaboo.approval.decision": "granted",
      "kaboo.approval.principal": sha256Hex("ann"),
      "kaboo.ledger.answer": "ran",
    });
    expect(attrs["kaboo.approval.grant_id"]).toMatch(/\S/);
    expect(JSON.stringify(t.spans().map((s) => s.attributes))).not.toContain('"ann"');
  });

  test("four eyes: the open question's span shows the approvals so far, and the run that completes it says approved", async () => {
    const t = tracing();
    const gate: GateRule = {
      pattern: "transfer",
      subject: toRecipient,
      approvals: { required: 2, eligible: (p) => ["bob", "carol"].includes(p), forbidRequester: true },
    };
    const th = thread(t, { gate });
    await th.ask("ann");
    await th.answer("bob", { approved: true });
    expect(th.sent).toEqual([]);
    const afterBob = calls(t)[1];
    expect(afterBob?.attributes).toMatchObject({
      "kaboo.approval.decision": "asked",
      "kaboo.approval.approvals": 1,
      "kaboo.approval.required": 2,
    });
    expect(afterBob?.events.map((e) => e.name)).toEqual(["kaboo.approval.decided", "kaboo.approval.asked"]);
    await th.answer("carol", { approved: true });
    expect(th.sent).toEqual([{ to: "eve" }]);
    expect(calls(t)[2]?.attributes).toMatchObject({
      "kaboo.approval.decision": "approved",
      "kaboo.approval.principal": "carol",
      "kaboo.ledger.answer": "ran",
    });
    expect(calls(t)[2]?.links).toHaveLength(1);
  });

  test("registered after the gate, the hook still gives the paused call its span, and the approved one its answer", async () => {
    const t = tracing();
    const th = thread(t, { tracingLast: true });
    await th.ask();
    await th.answer("bob", { approved: true });
    const [asked, ran] = calls(t);
    expect(approvalAttrs(asked)).toMatchObject({
      "kaboo.approval.decision": "asked",
      "kaboo.approval.subject": "to:eve",
    });
    expect(asked?.attributes["gen_ai.tool.call.id"]).toBe("c1");
    expect(approvalAttrs(ran)).toMatchObject({ "kaboo.approval.decision": "approved", "kaboo.ledger.answer": "ran" });
    expect(ran?.links).toHaveLength(1);
    expect(calls(t)).toHaveLength(2);
  });
});
