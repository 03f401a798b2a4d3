/**
 * The AuditLog contract, as plain checks with no test framework, so the same checks run in Node
 * (memory), in Chromium (IndexedDB), in workerd (Durable Objects) and in Deno (Deno KV).
 */
import type { AuditLog, AuditRecord } from "../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";
import { assert, runChecks, type ContractResult } from "../stores/contract.js";

const revocation = (n: number): AuditRecord => ({
  kind: "revocation",
  grantIds: [`g${n}`],
  principal: null,
  by: "ops",
});

const CHECKS: Record<string, (make: () => AuditLog, id: () => string) => Promise<void>> = {
  async "an unknown thread has no entries"(make, id) {
    assert((await make().entries(id())).length === 0, "entries of an unknown thread");
  },
  async "appends form one chain that verifies, and are read back as appended"(make, id) {
    const log = make();
    const t = id();
    const first = await log.append(t, revocation(0));
    assert(first.seq === 0 && first.prev === null && first.threadId === t, `first entry ${JSON.stringify(first)}`);
    for (let i = 1; i < 4; i++) await log.append(t, revocation(i));
    const entries = await log.entries(t);
    const check = await verifyAuditTrail(entries);
    assert(check.ok && check.count === 4, `verification: ${JSON.stringify(check)}`);
    const ids = entries.map((e) => (e.kind === "revocation" ? e.grantIds[0] : ""));
    assert(JSON.stringify(ids) === JSON.stringify(["g0", "g1", "g2", "g3"]), `order ${JSON.stringify(ids)}`);
  },
  async "threads keep separate chains"(make, id) {
    const log = make();
    const [a, b] = [id(), id()];
    await log.append(a, revocation(0));
    await log.append(b, revocation(1));
    await log.append(a, revocation(2));
    assert((await log.entries(a)).length === 2 && (await log.entries(b)).length === 1, "entries mixed between threads");
    assert((await verifyAuditTrail(await log.entries(b))).ok, "second thread's chain");
  },
  async "two instances (isolates, tabs) appending at once keep one unbroken chain"(make, id) {
    const [x, y] = [make(), make()];
    const t = id();
    await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? x : y).append(t, revocation(i))));
    const entries = await x.entries(t);
    const check = await verifyAuditTrail(entries);
    assert(check.ok && check.count === 12, `after a race: ${JSON.stringify(check)}`);
    const ids = new Set(entries.map((e) => (e.kind === "revocation" ? e.grantIds[0] : "")));
    assert(ids.size === 12, `an entry was lost or doubled (${ids.size} distinct)`);
  },
};

/** The names of the checks, in order. */
export const AUDIT_CONTRACT_CHECKS: readonly string[] = Object.keys(CHECKS);

/**
 * Runs every check against fresh logs from `make` (two calls must share the same storage).
 * @returns One result per check, with the failure message if it failed.
 */
export function runAuditContract(make: () => AuditLog): Promise<ContractResult[]> {
  const prefix = crypto.randomUUID();
  let n = 0;
  const id = () => `${prefix}-${n++}`;
  return runChecks(CHECKS, (check) => check(make, id));
}
