/** Assertions over an audit trail: that it verifies and that it records exactly what ran. */
import { expect } from "vitest";
import type { AuditEntry, AuditLog } from "../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";

/**
 * The trail of `threadId` verifies, and its execution entries say a call ran here exactly as often
 * as the tool really ran: `ran` holds the idempotency key of every real run (in any order). Each
 * call that ran after a question has an approving decision (or a grant use) before it.
 *
 * @returns The entries, for further checks.
 */
export async function expectAuditMatchesRuns(
  audit: AuditLog,
  threadId: string,
  ran: readonly string[],
): Promise<AuditEntry[]> {
  const entries = await audit.entries(threadId);
  const check = await verifyAuditTrail(entries);
  expect(check, "the audit trail verifies").toMatchObject({ ok: true, count: entries.length });
  const executed = entries.flatMap((e) =>
    e.kind === "execution" && (e.claim === "claimed" || e.answer === "run_again") ? [e.idempotencyKey] : [],
  );
  expect([...executed].sort(), "the trail's executions are the tool's runs").toEqual([...ran].sort());
  for (const [i, e] of entries.entries()) {
    if (e.kind !== "execution" || e.claim !== "claimed") continue;
    const asked = entries.slice(0, i).some((x) => x.kind === "request" && x.toolUseId === e.toolUseId);
    if (!asked) continue;
    const allowed = entries
      .slice(0, i)
      .some(
        (x) =>
          (x.kind === "decision" && x.toolUseId === e.toolUseId && x.decision === "approved") ||
          (x.kind === "grant_use" && x.toolUseId === e.toolUseId),
      );
    expect(allowed, `entry ${i} ran a call that was asked about but never approved`).toBe(true);
  }
  return entries;
}

/** The kinds of a trail's entries, in order (`decision:approved`, `execution:claimed`, …). */
export function auditKinds(entries: readonly AuditEntry[]): string[] {
  return entries.map((e) =>
    e.kind === "decision" ? `decision:${e.decision}` : e.kind === "execution" ? `execution:${e.claim}` : e.kind,
  );
}
