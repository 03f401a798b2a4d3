/** The page's audit trail in real Chromium: two pages answer one approval at once; the IndexedDB trail records one run and verifies. */
import { EventType } from "@ag-ui/core";
import { expect, test } from "vitest";
import type { AuditEntry } from "../../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../../src/agent/audit/audit-verify.js";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { AUDIT_EVENT } from "../../../src/agui/index.js";
import { IndexedDbAuditLog, IndexedDbExecutionLedger } from "../../../src/grants/index.js";
import { bankRunner } from "../fixtures.js";
import { newBank } from "../../fixtures/bank.js";
import { user } from "../helpers.js";

test("a page's KabooAgent records the question, the answer and the one run in IndexedDB, and shows each entry live", async () => {
  const bank = newBank();
  const threadId = crypto.randomUUID();
  const dbName = `page-audit-${crypto.randomUUID()}`;
  const ledger = new IndexedDbExecutionLedger({ dbName: `${dbName}-ledger` });
  const page = () =>
    new KabooAgent({ threadId, agent: () => bankRunner(bank), ledger, audit: new IndexedDbAuditLog({ dbName }) });
  const live: AuditEntry[] = [];
  const watch = (agent: KabooAgent) =>
    agent.subscribe({
      onEvent: ({ event }) => {
        if (event.type === EventType.CUSTOM && (event as { name?: string }).name === AUDIT_EVENT)
          live.push(...((event as unknown as { value: { entries: AuditEntry[] } }).value.entries ?? []));
      },
    });
  const one = page();
  watch(one);
  one.addMessage(user("pay olga 7"));
  await one.runAgent();
  const interruptId = one.pendingInterrupts[0]!.id;
  const resume = [{ interruptId, status: "resolved" as const, payload: { approved: true } }];
  const two = page();
  watch(two);
  two.setState(one.state);
  two.setMessages(one.messages);
  await Promise.allSettled([one.runAgent({ resume }), two.runAgent({ resume })]);
  expect(bank.transfers).toEqual([{ to: "olga", amount: 7 }]);
  const entries = await new IndexedDbAuditLog({ dbName }).entries(threadId);
  expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true });
  expect(entries.filter((e) => e.kind === "execution" && e.claim === "claimed")).toHaveLength(1);
  expect(entries[0]).toMatchObject({ kind: "request", tool: "transfer" });
  // Each entry reached a front end as it was written (whichever tab ran the resume).
  expect(live).toEqual(entries);
});
