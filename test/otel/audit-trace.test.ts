// The audit entry carries the trace and span ids of its call's execute_tool span (real trace SDK, in-memory
// exporter), hashed with the entry; without tracing, entries have no such fields; old entries still verify.
import { describe, expect, test } from "vitest";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { MemoryAuditLog, verifyAuditTrail, type AuditEntry, type AuditTraced } from "../../src/index.js";
import { TracingHook } from "../../src/otel/index.js";
import { calls, thread, toRecipient } from "./bank-thread.js";
import { tracing, type Tracing } from "./trace-fixtures.js";

const idsOf = (s: ReadableSpan | undefined) => ({
  traceId: s?.spanContext().traceId,
  spanId: s?.spanContext().spanId,
});
const idsIn = (e: Entry | undefined) => ({ traceId: e?.traceId, spanId: e?.spanId });

/** Every kind of entry, read with the trace fields a call's entry may have. */
type Entry = AuditEntry & AuditTraced;

async function trail(audit: MemoryAuditLog | undefined): Promise<Entry[]> {
  const entries: Entry[] = (await audit?.entries("th")) ?? [];
  expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true, count: entries.length });
  return entries;
}

describe("audit entries name the call's execute_tool span", () => {
  test("paused then approved: the request names the asking span, the decision and the execution the span that ran", async () => {
    const t = tracing();
    const th = thread(t, { audit: true });
    await th.ask();
    await th.answer("bob", { approved: true });
    const entries = await trail(th.audit);
    expect(entries.map((e) => e.kind)).toEqual(["request", "decision", "execution"]);
    const [asked, ran] = calls(t);
    expect(asked?.spanContext().spanId).not.toBe(ran?.spanContext().spanId);
    expect(idsIn(entries[0])).toEqual(idsOf(asked));
    expect(idsIn(entries[1])).toEqual(idsOf(ran));
    expect(idsIn(entries[2])).toEqual(idsOf(ran));
    for (const e of entries) {
      expect(e.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(e.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    // And the span names the entry: its sequence number in the thread's trail.
    expect(ran?.attributes["kaboo.approval.audit_seq"]).toBe(entries[1]?.seq);
    expect(asked?.attributes["kaboo.approval.audit_seq"]).toBe(entries[0]?.seq);
  });

  test("denied, and a remembered grant: the decision and the grant use carry their span's ids", async () => {
    const t = tracing();
    const denied = thread(t, { audit: true });
    await denied.ask();
    await denied.answer("bob", { approved: false });
    const [, deniedSpan] = calls(t);
    const entries = await trail(denied.audit);
    expect(entries.map((e) => [e.kind, e.kind === "decision" ? e.decision : null])).toEqual([
      ["request", null],
      ["decision", "denied"],
    ]);
    expect(idsIn(entries[1])).toEqual(idsOf(deniedSpan));

    const g = tracing();
    const granted = thread(g, { audit: true, gate: { pattern: "transfer", subject: toRecipient, remember: "always" } });
    const grant = { tool: "transfer", scope: "always", subjectKey: "to:eve", principal: "ann", grantedAt: 1 };
    const { SessionExchange } = await import("../../src/agent/interrupts/session.js");
    const exchange = new SessionExchange(undefined, false, { warn() {}, error() {} });
    exchange.publishesApprovals = true;
    await granted.ask("ann", { forwardedProps: { kaboo_grants: [grant] }, kabooSessionExchange: exchange });
    const used = await trail(granted.audit);
    expect(used.map((e) => e.kind)).toEqual(["grant_use", "execution"]);
    expect(idsIn(used[0])).toEqual(idsOf(calls(g)[0]));
    expect(idsIn(used[1])).toEqual(idsOf(calls(g)[0]));
  });

  test("the hash chain covers the ids: an entry whose span id was edited breaks the chain where it is", async () => {
    const t = tracing();
    const th = thread(t, { audit: true });
    await th.ask();
    await th.answer("bob", { approved: true });
    const rows = th.audit?.storedRows("th") ?? [];
    const edited = JSON.parse(rows[0] as string) as Entry;
    edited.spanId = "0123456789abcdef";
    rows[0] = JSON.stringify(edited);
    expect(await verifyAuditTrail((await th.audit?.entries("th")) ?? [])).toMatchObject({
      ok: false,
      problem: "edited",
      index: 0,
    });
    // A span id that is not 16 hex digits is no audit entry.
    rows[0] = JSON.stringify({ ...edited, spanId: "not-a-span" });
    expect(await verifyAuditTrail((await th.audit?.entries("th")) ?? [])).toMatchObject({
      ok: false,
      problem: "malformed",
    });
  });

  test("without tracing (no hook, or a hook whose tracer does not record), entries have no trace fields, and a trail mixing both verifies", async () => {
    const none = { hook: { registerHooks() {} } } as unknown as Tracing;
    const untraced = thread(none, { audit: true });
    await untraced.ask();
    await untraced.answer("bob", { approved: true });
    // No SDK registered: the global tracer is a no-op, its spans do not record.
    const noop = { hook: new TracingHook() } as unknown as Tracing;
    const quiet = thread(noop, { audit: true });
    await quiet.ask();
    await quiet.answer("bob", { approved: true });
    for (const entries of [await trail(untraced.audit), await trail(quiet.audit)]) {
      expect(entries.map((e) => e.kind)).toEqual(["request", "decision", "execution"]);
      for (const e of entries) {
        expect(Object.keys(e)).not.toContain("traceId");
        expect(Object.keys(e)).not.toContain("spanId");
      }
    }

    // Old entries (written before the ids existed) followed by traced ones, on one thread: the chain holds.
    const audit = new MemoryAuditLog();
    const t = tracing();
    const mixed = thread(t, { audit: true });
    await mixed.ask();
    await mixed.answer("bob", { approved: true });
    for (const e of (await untraced.audit?.entries("th")) ?? []) {
      const { v, seq, threadId, at, prev, ...record } = e;
      void [v, seq, threadId, at, prev];
      await audit.append("th", record);
    }
    for (const e of (await mixed.audit?.entries("th")) ?? []) {
      const { v, seq, threadId, at, prev, ...record } = e;
      void [v, seq, threadId, at, prev];
      await audit.append("th", record);
    }
    const all = await trail(audit);
    expect(all.map((e) => e.spanId !== undefined)).toEqual([false, false, false, true, true, true]);
  });
  test("ids a tracer makes in another form (upper-case hex: valid to the API, not to an entry) are not written, and the trail verifies", async () => {
    const exporter = new InMemorySpanExporter();
    const hex = (n: number) =>
      Array.from({ length: n }, () => "ABCDEF0123456789"[Math.floor(Math.random() * 16)]).join("");
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      idGenerator: { generateTraceId: () => hex(32), generateSpanId: () => hex(16) },
    });
    const t = { hook: new TracingHook({ tracer: provider.getTracer("upper") }) } as unknown as Tracing;
    const th = thread(t, { audit: true });
    await th.ask();
    await th.answer("bob", { approved: true });
    const entries = await trail(th.audit);
    expect(entries.map((e) => e.kind)).toEqual(["request", "decision", "execution"]);
    expect(entries.filter((e) => "traceId" in e || "spanId" in e)).toEqual([]);
    // The spans were traced all the same, with the approval on them.
    const ran = exporter.getFinishedSpans().filter((s) => s.name === "execute_tool transfer")[1];
    expect(ran?.spanContext().spanId).toMatch(/^[0-9A-F]{16}$/);
    expect(ran?.attributes["kaboo.approval.decision"]).toBe("approved");
  });
});
