/**
 * kabooToolApproval's synchronous path under attack, with the real AI SDK: a throw anywhere fails the step
 * (never approves), a grant's use is recorded before the answer or the call does not run, the gate's clock (not
 * the store's) decides expiry, and a store whose methods are replaced on the instance is asked through them.
 */
import { describe, expect, it } from "vitest";
import { MemoryAuditLog } from "../../src/agent/audit/audit.js";
import type { AuditEntry, AuditRecord } from "../../src/agent/audit/audit-types.js";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { kabooToolApproval } from "../../src/ai-sdk/index.js";
import type { Grant } from "../../src/grants/grant.js";
import { MemoryGrantStore } from "../../src/grants/store.js";
import { capturingLogger } from "../fixtures/logger.js";
import { approvalRequests, bank, pay, request, scriptedModel, toBob } from "./fixtures.js";

const silent = capturingLogger();
const always = { pattern: "transfer", remember: "always" as const };
/** One request in which the model asks to pay Bob, on a fresh ledger. */
const payBobOnce = (tools: ReturnType<typeof bank>["tools"], approval: Parameters<typeof request>[0]["approval"]) =>
  request({ model: scriptedModel([toBob]), tools, messages: pay, ledger: new MemoryExecutionLedger(), approval });
const call = { toolCall: { toolName: "transfer", toolCallId: "call-1", input: toBob.input }, tools: undefined };

async function granted(options: ConstructorParameters<typeof MemoryGrantStore>[0] = {}, expiresAt?: number) {
  const grants = new MemoryGrantStore(options);
  await grants.grant({ tool: "transfer", scope: "always", expiresAt });
  return grants;
}

describe("kabooToolApproval's synchronous path under attack", () => {
  it("a subject that throws asks (no grant covers it); a store that throws synchronously fails the step", async () => {
    const throwing = {
      ...always,
      subject: () => {
        throw new Error("no subject");
      },
    };
    const { runs, tools } = bank();
    const ledger = new MemoryExecutionLedger();
    const asked = await request({
      model: scriptedModel([toBob]),
      tools,
      messages: pay,
      ledger,
      approval: { rules: [throwing], threadId: "t1", grants: await granted(), logger: silent },
    });
    expect([approvalRequests(asked.response.messages).length, runs.transfer]).toEqual([1, 0]);
    class Throwing extends MemoryGrantStore {
      override grantsFor(): Promise<Grant[]> {
        throw new Error("store down");
      }
    }
    const grants = new Throwing();
    await grants.grant({ tool: "transfer", scope: "always" });
    const gate = kabooToolApproval({ rules: [always], threadId: "t1", grants, ledger });
    const answer = gate({ ...call, messages: pay });
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toThrow("store down");
    const approval = { rules: [always], threadId: "t1", grants };
    await expect(request({ model: scriptedModel([toBob]), tools, messages: pay, ledger, approval })).rejects.toThrow(
      "store down",
    );
    expect(runs.transfer).toBe(0);
  });

  it("a grant_use the trail fails to write (at once or later) fails the step: the covered call does not run", async () => {
    for (const how of ["throws", "rejects"] as const) {
      class Failing extends MemoryAuditLog {
        override append(threadId: string, record: AuditRecord): Promise<AuditEntry> {
          if (record.kind !== "grant_use") return super.append(threadId, record);
          if (how === "throws") throw new Error("disk full");
          return Promise.reject(new Error("disk full"));
        }
      }
      const { runs, tools } = bank();
      const ledger = new MemoryExecutionLedger();
      const approval = { rules: [always], threadId: "t1", grants: await granted(), audit: new Failing() };
      await expect(request({ model: scriptedModel([toBob]), tools, messages: pay, ledger, approval })).rejects.toThrow(
        "disk full",
      );
      expect(runs.transfer).toBe(0);
    }
  });

  it("records grant_use before the call runs", async () => {
    const audit = new MemoryAuditLog();
    const { runs, tools } = bank();
    const seen: string[] = [];
    type Run = (input: unknown, o: unknown) => Promise<unknown>;
    const transfer = tools.transfer as unknown as { execute: Run };
    const original = transfer.execute;
    transfer.execute = async (input, o) => {
      seen.push(...(await audit.entries("t1")).map((r) => r.kind));
      return original(input, o);
    };
    const approval = { rules: [always], threadId: "t1", grants: await granted(), audit };
    await payBobOnce(tools, approval);
    expect(runs.transfer).toBe(1);
    expect(seen).toContain("grant_use");
  });

  it("expiry is the gate's clock: a grant expired by it covers nothing, whatever the store's clock says", async () => {
    const { runs, tools } = bank();
    const grants = await granted({ now: () => 0 }, 50);
    const ask = async (now: number) => {
      const approval = { rules: [always], threadId: "t1", grants, now: () => now };
      const ledger = new MemoryExecutionLedger();
      const r = await request({ model: scriptedModel([toBob]), tools, messages: pay, ledger, approval });
      return approvalRequests(r.response.messages).length;
    };
    expect([await ask(100), runs.transfer]).toEqual([1, 0]);
    expect([await ask(50), runs.transfer]).toEqual([1, 0]);
    expect([await ask(49), runs.transfer]).toEqual([0, 1]);
    // A clock that answers no number (NaN) expires every grant that has an end: fail closed.
    expect([await ask(Number.NaN), runs.transfer]).toEqual([1, 1]);
  });

  it("a memory store whose grantsFor or list is replaced on the instance is asked through it", async () => {
    for (const method of ["grantsFor", "list"] as const) {
      const grants = await granted();
      const asked: string[] = [];
      Object.assign(grants, {
        [method]: async (): Promise<Grant[]> => {
          asked.push(method);
          return [];
        },
      });
      const { runs, tools } = bank();
      const approval = { rules: [always], threadId: "t1", grants };
      const r = await payBobOnce(tools, approval);
      expect([approvalRequests(r.response.messages).length, runs.transfer]).toEqual([1, 0]);
      expect(asked).toEqual([method]);
    }
  });

  it("a grant given with a then() of its own is stored without it: the gate never calls it", async () => {
    let called = 0;
    const grants = new MemoryGrantStore();
    // biome-ignore lint/suspicious/noThenProperty: a grant input that looks like a thenable is the attack
    const input = { tool: "transfer", scope: "always" as const, then: () => called++ };
    await grants.grant(input as never);
    const { runs, tools } = bank();
    const approval = { rules: [always], threadId: "t1", grants };
    await payBobOnce(tools, approval);
    expect([called, runs.transfer]).toEqual([0, 1]);
  });
});
