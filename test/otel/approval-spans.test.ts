// Approvals on the trace, with the real OpenTelemetry trace SDK: every gated call has its execute_tool span,
// asked, approved, denied, expired, granted or under four eyes, with who answered and what the ledger said;
// the run that resumes links to the span that asked, also when the paused session went through JSON.
import { SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  InterruptState,
  MemoryAuditLog,
  MemoryExecutionLedger,
  ScriptedModel,
  tool,
  type JsonValue,
} from "../../src/index.js";
import { InterruptHook, type GateRule, type SubjectFn } from "../../src/hooks/interrupt-hook.js";
import { sha256Hex } from "../../src/agent/shared/sha256.js";
import { type Tracing, tracing } from "./trace-fixtures.js";
import { TRACE_LINKS_KEY } from "../../src/otel/index.js";
import { restoreSessionState, SessionStateHook, sessionStateSnapshot } from "../../src/hooks/session-state-hook.js";
import { createSessionExchange } from "../../src/agent/run-context.js";

/** A transfer tool that records what it sent. */
function transferTool() {
  const sent: { to: string }[] = [];
  const t = tool({
    name: "transfer",
    description: "Sends money.",
    inputSchema: z.object({ to: z.string() }),
    callback: (input) => {
      sent.push(input);
      return "sent";
    },
  });
  return { tool: t, sent };
}

const toRecipient: SubjectFn = (_, i) => ({
  key: `to:${(i as { to: string }).to}`,
  label: `transfers to ${(i as { to: string }).to}`,
});

/** A thread whose paused state goes through JSON between runs: every run is a fresh agent (a restart). */
function thread(
  t: Tracing,
  o: { gate?: GateRule; ttlSeconds?: number; now?: () => number; audit?: boolean; ledger?: MemoryExecutionLedger } = {},
) {
  const { tool, sent } = transferTool();
  const ledger = o.ledger ?? new MemoryExecutionLedger();
  const audit = o.audit ? new MemoryAuditLog() : undefined;
  let saved: { messages: Agent["messages"]; interrupts: unknown } | undefined;
  const make = () => {
    const agent = new Agent({
      name: "bank",
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length
            ? { text: "ok" }
            : { toolCalls: [{ name: "transfer", input: { to: "eve" }, id: "c1" }] },
      }),
      tools: [tool],
      hooks: [
        t.hook,
        new InterruptHook([o.gate ?? { pattern: "transfer", subject: toRecipient }], {
          ...(o.ttlSeconds === undefined ? {} : { ttlSeconds: o.ttlSeconds }),
          ...(o.now ? { now: o.now } : {}),
        }),
      ],
      ledger,
      ...(audit ? { audit } : {}),
    });
    if (saved) {
      agent.messages = saved.messages;
      agent.interruptState = InterruptState.fromJSON(saved.interrupts);
    }
    return agent;
  };
  const as = (principal: string, extra: Record<string, unknown> = {}) => ({
    invocationState: { threadId: "th", kabooPrincipal: principal, ...extra },
  });
  return {
    sent,
    audit,
    ledger,
    async ask(principal = "ann", extra: Record<string, unknown> = {}) {
      const agent = make();
      const r = await agent.invoke("pay eve", as(principal, extra));
      saved = JSON.parse(JSON.stringify({ messages: agent.messages, interrupts: agent.interruptState.toJSON() }));
      return r;
    },
    async answer(principal: string, response: JsonValue) {
      const agent = make();
      const open = agent.interruptState.pendingIds()[0] ?? "";
      const r = await agent.invoke([{ interruptResponse: { interruptId: open, response } }], as(principal));
      saved = JSON.parse(JSON.stringify({ messages: agent.messages, interrupts: agent.interruptState.toJSON() }));
      return r;
    },
  };
}

const calls = (t: Tracing) => t.spans().filter((s) => s.name === "execute_tool transfer");
const runs = (t: Tracing) => t.spans().filter((s) => s.name === "invoke_agent bank");
const approvalAttrs = (s: ReadableSpan | undefined) =>
  Object.fromEntries(Object.entries(s?.attributes ?? {}).filter(([k]) => k.startsWith("kaboo.")));

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

  test("a replayed resume: the same answer on a second cold agent sharing the ledger replays the recorded result", async () => {
    const t = tracing();
    const ledger = new MemoryExecutionLedger();
    const th = thread(t, { ledger });
    await th.ask();
    // Two replicas restored from the same paused session, both answered: the call runs once.
    const second = thread(t, { ledger });
    await second.ask();
    await th.answer("bob", { approved: true });
    await second.answer("bob", { approved: true });
    expect(th.sent.length + second.sent.length).toBe(1);
    const answers = calls(t)
      .map((s) => s.attributes["kaboo.ledger.answer"])
      .filter((a) => a !== undefined);
    expect(answers).toEqual(["ran", "replayed"]);
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

  test("with an audit log, each record's entry id is on the span and its events", async () => {
    const t = tracing();
    const th = thread(t, { audit: true });
    await th.ask();
    await th.answer("bob", { approved: true });
    const entries = await th.audit?.entries("th");
    expect(entries?.map((e) => e.kind)).toEqual(["request", "decision", "execution"]);
    expect(calls(t)[0]?.attributes["kaboo.approval.audit_seq"]).toBe(0);
    expect(calls(t)[1]?.attributes["kaboo.approval.audit_seq"]).toBe(1);
    expect(calls(t)[1]?.events.map((e) => e.attributes?.["kaboo.approval.audit_seq"])).toEqual([1, 2]);
  });

  test("through the host's paused session (the snapshot as JSON, restored on a cold agent): the resumed call links to the asking span", async () => {
    const t = tracing();
    const make = () =>
      new Agent({
        name: "bank",
        model: new ScriptedModel({
          script: ({ lastToolResults }) =>
            lastToolResults.length
              ? { text: "ok" }
              : { toolCalls: [{ name: "transfer", input: { to: "eve" }, id: "c1" }] },
        }),
        tools: [transferTool().tool],
        hooks: [t.hook, new SessionStateHook(), new InterruptHook(["transfer"])],
      });
    const first: Record<string, unknown> = { threadId: "th" };
    createSessionExchange(first);
    const asker = make();
    const paused = await asker.invoke("pay eve", { invocationState: first });
    const snapshot = JSON.parse(JSON.stringify(sessionStateSnapshot(first)));
    expect(Object.keys(snapshot.interrupt_state.context)).toContain(TRACE_LINKS_KEY);
    const second: Record<string, unknown> = { threadId: "th" };
    createSessionExchange(second, { inbound: snapshot, resuming: true });
    const id = paused.interrupts[0]?.id as string;
    const cold = make();
    cold.messages = JSON.parse(JSON.stringify(asker.messages));
    restoreSessionState(cold, second);
    await cold.invoke([{ interruptResponse: { interruptId: id, response: { approved: true } } }], {
      invocationState: second,
    });
    const [asked, ran] = calls(t);
    expect(ran?.attributes["kaboo.ledger.answer"]).toBe("ran");
    expect(ran?.links.map((l) => l.context.spanId)).toEqual([asked?.spanContext().spanId]);
    expect(runs(t)[1]?.links).toHaveLength(1);
  });

  test("a call whose outcome was lost: the question is on its span (not an approval), then the person's answer and the run", async () => {
    const t = tracing();
    let now = 1_000;
    const ledger = new MemoryExecutionLedger({ now: () => now });
    const { tool: transfer, sent } = transferTool();
    const make = () =>
      new Agent({
        name: "bank",
        model: new ScriptedModel({
          script: [{ toolCalls: [{ name: "transfer", input: { to: "bob" }, id: "t1" }] }, { text: "done" }],
        }),
        tools: [transfer],
        ledger,
        hooks: [t.hook],
      });
    const { executionKey } = await import("../../src/index.js");
    await ledger.claim(await executionKey({ threadId: "th", toolUseId: "t1", input: { to: "bob" } }), { leaseMs: 10 });
    now += 11;
    const agent = make();
    const asked = await agent.invoke("pay", { invocationState: { threadId: "th" } });
    const question = asked.interrupts[0]?.id as string;
    expect(calls(t)[0]?.attributes).toMatchObject({
      "kaboo.tool.question": question,
      "kaboo.ledger.answer": "outcome_unknown",
    });
    expect(calls(t)[0]?.attributes["kaboo.approval.decision"]).toBeUndefined();
    await agent.invoke([{ interruptResponse: { interruptId: question, response: { action: "run_again" } } }], {
      invocationState: { threadId: "th" },
    });
    expect(sent).toEqual([{ to: "bob" }]);
    expect(calls(t)[1]?.attributes).toMatchObject({
      "kaboo.ledger.answer": "ran",
      "kaboo.ledger.person_answer": "run_again",
    });
    expect(calls(t)[1]?.links.map((l) => l.context.spanId)).toEqual([calls(t)[0]?.spanContext().spanId]);
  });
});
