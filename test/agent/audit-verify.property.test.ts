/**
 * Property: what verifyAuditTrail finds in a real chain, exactly as the README says. Without a kept
 * head: an edited, dropped or reordered entry anywhere before the last. Only with the head kept
 * elsewhere: an edit of the last entry, a cut tail, and a chain re-hashed from the edited entry on.
 * Whitespace and key order in the JSON Lines export are not edits.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  auditFromJsonLines,
  auditToJsonLines,
  MemoryAuditLog,
  verifyAuditTrail,
  type AuditEntry,
} from "../../src/index.js";
import { auditEntryHash } from "../../src/agent/audit/audit.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 200;

async function chain(principals: string[]): Promise<AuditEntry[]> {
  const log = new MemoryAuditLog();
  for (const [i, p] of principals.entries())
    await log.append("t", { kind: "revocation", grantIds: [`g${i}`], principal: p, by: null });
  return log.entries("t");
}

/** The chain re-hashed from `from` on, as someone who can write the storage would. */
function rehash(entries: AuditEntry[], from: number): AuditEntry[] {
  const out = entries.map((e) => ({ ...e }));
  for (let i = Math.max(1, from); i < out.length; i++)
    out[i] = { ...(out[i] as AuditEntry), prev: auditEntryHash(out[i - 1]) };
  return out;
}

const edit = (e: AuditEntry, text: string): AuditEntry =>
  ({ ...e, principal: `${String((e as { principal?: unknown }).principal)}${text}` }) as AuditEntry;
const trail = fc.array(fc.string({ maxLength: 8 }), { minLength: 2, maxLength: 8 });

describe("property: verifyAuditTrail finds what the README says it finds", () => {
  test(`an edit, a drop or a swap before the last entry, without a head (${RUNS} chains)`, async () => {
    await fc.assert(
      fc.asyncProperty(trail, fc.nat(), fc.string({ minLength: 1, maxLength: 4 }), async (ps, raw, text) => {
        const entries = await chain(ps);
        const at = raw % (entries.length - 1);
        const edited = entries.map((e, i) => (i === at ? edit(e, text) : e));
        expect(await verifyAuditTrail(edited)).toMatchObject({ ok: false, problem: "edited" });
        const dropped = entries.filter((_, i) => i !== at);
        expect((await verifyAuditTrail(dropped, { threadId: "t" })).ok).toBe(false);
        const swapped = [...entries];
        [swapped[at], swapped[at + 1]] = [swapped[at + 1] as AuditEntry, swapped[at] as AuditEntry];
        expect((await verifyAuditTrail(swapped, { threadId: "t" })).ok).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  test(`the last entry edited, a cut tail or a re-hashed chain: found only against the kept head (${RUNS} chains)`, async () => {
    await fc.assert(
      fc.asyncProperty(trail, fc.nat(), fc.string({ minLength: 1, maxLength: 4 }), async (ps, raw, text) => {
        const entries = await chain(ps);
        const whole = await verifyAuditTrail(entries);
        if (!whole.ok) throw new Error("a real chain must verify");
        const head = whole.head ?? undefined;
        const last = entries.map((e, i) => (i === entries.length - 1 ? edit(e, text) : e));
        const at = raw % entries.length;
        const rehashed = rehash(
          entries.map((e, i) => (i === at ? edit(e, text) : e)),
          at + 1,
        );
        const cut = entries.slice(0, -1);
        for (const forged of [last, rehashed, cut]) {
          expect((await verifyAuditTrail(forged)).ok).toBe(true);
          expect(await verifyAuditTrail(forged, { head })).toMatchObject({ ok: false, problem: "truncated" });
        }
      }),
      { numRuns: RUNS },
    );
  });

  test("JSON Lines round trip verifies against the head; whitespace and key order are not edits", async () => {
    const entries = await chain(["ann", "bob", "é\u0000\u2028"]);
    const whole = await verifyAuditTrail(entries);
    const head = whole.ok ? (whole.head ?? undefined) : undefined;
    const text = auditToJsonLines(entries);
    expect(await verifyAuditTrail(auditFromJsonLines(text), { head })).toMatchObject({ ok: true });
    const reordered = entries.map((e) => JSON.stringify(Object.fromEntries(Object.entries(e).reverse()), null, 0));
    const spaced = reordered.map((l) => l.replace(/,"/g, ', "')).join("\n\n");
    expect(await verifyAuditTrail(auditFromJsonLines(spaced), { head })).toMatchObject({ ok: true });
    const extra = text.replace('"kind":"revocation"', '"kind":"revocation","__proto__":{"x":1}');
    expect((await verifyAuditTrail(auditFromJsonLines(extra), { head })).ok).toBe(false);
  });
});
