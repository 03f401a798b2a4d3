/**
 * The adapter on PostgreSQL (PGlite, in process): the ledger of PostgresThreadStore and the
 * PostgresGrantStore, each request building its own kabooToolApproval and withLedger over the same
 * database, as server instances do. The approved call runs once; a thread grant is honoured in its
 * thread until it is revoked; the audit trail lives in the same database.
 */
import { PGlite } from "@electric-sql/pglite";
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";
import { approvalReason } from "../../src/ai-sdk/index.js";
import { fromPglite, migrate, PostgresGrantStore, PostgresThreadStore } from "../../src/stores/postgres.js";
import { PostgresAuditLog } from "../../src/stores/postgres/audit.js";
import { answered, approvalRequests, bank, request, scriptedModel } from "./fixtures.js";

const db = fromPglite(await PGlite.create());
await migrate(db);

const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
const toBob = { toolName: "transfer", input: { to: "bob", cents: 5 } };
const rules = [{ pattern: "transfer", remember: "thread" as const }];

describe("on PostgreSQL (PGlite)", () => {
  it("runs an approved call once across instances and at once, then a thread grant covers the next call until revoked", async () => {
    const threads = new PostgresThreadStore(db);
    const grants = new PostgresGrantStore(db);
    const audit = new PostgresAuditLog(db);
    const { runs, tools } = bank();
    const model = scriptedModel([toBob, toBob, toBob]);
    const approval = { rules, threadId: "pg-1", grants, principal: "ann", audit };
    const first = await request({ model, tools, messages: pay, ledger: threads.ledger("pg-1"), approval });
    const reason = approvalReason({ scope: "thread" });
    const messages = answered(pay, first.response.messages, { approved: true, reason });
    await Promise.all([
      request({ model, tools, messages, ledger: threads.ledger("pg-1"), approval }),
      request({ model, tools, messages, ledger: threads.ledger("pg-1"), approval }),
    ]);
    await request({ model, tools, messages, ledger: threads.ledger("pg-1"), approval });
    expect(runs.transfer).toBe(1);
    expect(await grants.grantsFor("pg-1", { principal: "ann" })).toMatchObject([{ tool: "transfer", scope: "thread" }]);
    const next = await request({ model, tools, messages: pay, ledger: threads.ledger("pg-1"), approval });
    expect(approvalRequests(next.response.messages).filter((r) => r.isAutomatic !== true)).toEqual([]);
    expect(runs.transfer).toBe(2);
    expect(await grants.revoke(() => true)).toBe(1);
    const asked = await request({ model, tools, messages: pay, ledger: threads.ledger("pg-1"), approval });
    expect(approvalRequests(asked.response.messages)).toHaveLength(1);
    expect(runs.transfer).toBe(2);
    expect(await verifyAuditTrail(await audit.entries("pg-1"), { threadId: "pg-1" })).toMatchObject({ ok: true });
  });
});
