/**
 * Attacks on withLedger's claim as the memory ledger answers it, synchronously and by the call's text (its
 * key hashed only when read): a call sent twice at once, replayed, or left claimed by a crash runs once;
 * the record under the text and the one under the key are one; a ledger of one's own is asked by key.
 */
import { tool, type ToolExecutionOptions } from "ai";
import { describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { MemoryAuditLog } from "../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../src/agent/audit/audit-verify.js";
import {
  executionKey,
  type ClaimOptions,
  type ClaimOutcome,
  type LedgerResult,
} from "../../src/agent/ledger/ledger.js";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { CallOutcomeUnknownError, withLedger } from "../../src/ai-sdk/index.js";
import { CallInProgressError } from "../../src/errors.js";
import type { Logger } from "../../src/logger.js";

const input = { to: "bob", cents: 5 };
const opts = (toolCallId: string): ToolExecutionOptions<unknown> => ({ toolCallId, messages: [], context: undefined });
type Exec = (input: unknown, options: ToolExecutionOptions<unknown>) => Promise<unknown>;
const execOf = (t: unknown) => (t as { execute: Exec }).execute;
const key = (toolUseId: string, threadId = "t1") => executionKey({ threadId, toolUseId, input });

/** A transfer that counts its runs and waits for `gate` (when given) before it answers. */
function bank(gate?: Promise<void>) {
  const seen: Record<string, unknown>[] = [];
  const tools = {
    transfer: tool({
      inputSchema: z.object({ to: z.string(), cents: z.number() }),
      execute: async ({ to, cents }, options) => {
        seen.push({ ...options });
        await gate;
        return { sent: cents, to, run: seen.length };
      },
    }),
  };
  const run = (ledger: MemoryExecutionLedger, o: { threadId?: string; audit?: MemoryAuditLog } = {}) =>
    execOf(withLedger(tools, { ledger, threadId: o.threadId ?? "t1", audit: o.audit }).transfer);
  return { seen, run };
}

describe("withLedger's claim, synchronous and by the call's text", () => {
  it("runs a call sent twice at once (no gate, no string key ever asked) once; a replay reads its result", async () => {
    let open!: () => void;
    const { seen, run } = bank(new Promise<void>((resolve) => (open = resolve)));
    const ledger = new MemoryExecutionLedger();
    const first = run(ledger)(input, opts("c1"));
    const second = run(ledger)(input, opts("c1"));
    await expect(second).rejects.toBeInstanceOf(CallInProgressError);
    open();
    expect(await first).toEqual({ sent: 5, to: "bob", run: 1 });
    const [a, b] = await Promise.all([run(ledger)(input, opts("c1")), run(ledger)(input, opts("c1"))]);
    expect([a, b]).toEqual([
      { sent: 5, to: "bob", run: 1 },
      { sent: 5, to: "bob", run: 1 },
    ]);
    expect(seen).toHaveLength(1);
  });

  it("is one record with the call's key: a claim by key sees it running, then done with its result", async () => {
    let open!: () => void;
    const { seen, run } = bank(new Promise<void>((resolve) => (open = resolve)));
    const ledger = new MemoryExecutionLedger();
    const running = run(ledger)(input, opts("c1"));
    await Promise.resolve();
    // The first key asked by a host: the ledger moves its records from texts to keys.
    expect((await ledger.claim(key("c1"))).status).toBe("running");
    open();
    await running;
    const done = await ledger.claim(key("c1"));
    expect(done).toMatchObject({ status: "done", result: { structuredContent: { sent: 5, run: 1 } } });
    // Claimed under its key now, after the move: still the same call.
    expect(await run(ledger)(input, opts("c1"))).toEqual({ sent: 5, to: "bob", run: 1 });
    expect(seen).toHaveLength(1);
  });

  it("hands the key to a tool that spreads its options; another thread or call id is another call", async () => {
    const { seen, run } = bank();
    const ledger = new MemoryExecutionLedger();
    await run(ledger)(input, opts("c1"));
    await run(ledger)(input, opts("c2"));
    await run(ledger, { threadId: "t2" })(input, opts("c1"));
    expect(seen.map((o) => o.idempotencyKey)).toEqual([key("c1"), key("c2"), key("c1", "t2")]);
    expect(seen.map((o) => o.toolCallId)).toEqual(["c1", "c2", "c1"]);
  });

  it("does not run again a call a crash left claimed without a result: its outcome is unknown", async () => {
    let clock = 1_000_000;
    const ledger = new MemoryExecutionLedger({ now: () => clock });
    // The process that claimed it dies mid-call: its tool never answers, nothing settles.
    const hung = bank(new Promise<void>(() => {}));
    void hung.run(ledger)(input, opts("c1"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(hung.seen).toHaveLength(1);
    clock += 16 * 60 * 1000;
    const after = bank();
    await expect(after.run(ledger)(input, opts("c1"))).rejects.toBeInstanceOf(CallOutcomeUnknownError);
    await expect(after.run(ledger)(input, opts("c1"))).rejects.toBeInstanceOf(CallOutcomeUnknownError);
    expect(after.seen).toHaveLength(0);
  });

  it("asks a ledger of one's own by key, one claim and one settle per call, and runs a replay zero times", async () => {
    const asked: string[] = [];
    class Counting extends MemoryExecutionLedger {
      override async claim(k: string, options?: ClaimOptions): Promise<ClaimOutcome> {
        asked.push(`claim ${k}`);
        return super.claim(k, options);
      }
      override async settle(k: string, token: string, result: LedgerResult): Promise<void> {
        asked.push(`settle ${k}`);
        return super.settle(k, token, result);
      }
    }
    const { seen, run } = bank();
    const ledger = new Counting();
    await run(ledger)(input, opts("c1"));
    await run(ledger)(input, opts("c1"));
    expect(asked).toEqual([`claim ${key("c1")}`, `settle ${key("c1")}`, `claim ${key("c1")}`]);
    expect(seen).toHaveLength(1);
  });

  it("awaits a ledger of one's own that answers with a thenable that is not a Promise", async () => {
    class Thenable extends MemoryExecutionLedger {
      override claim(k: string, options?: ClaimOptions): Promise<ClaimOutcome> {
        const outcome = this.claimNow(k, options);
        return {
          // biome-ignore lint/suspicious/noThenProperty: the test's point is a thenable that is not a Promise.
          then: (resolve: (o: ClaimOutcome) => unknown) => resolve(outcome),
        } as unknown as Promise<ClaimOutcome>;
      }
    }
    const { seen, run } = bank();
    const ledger = new Thenable();
    expect(await run(ledger)(input, opts("c1"))).toEqual({ sent: 5, to: "bob", run: 1 });
    expect(await run(ledger)(input, opts("c1"))).toEqual({ sent: 5, to: "bob", run: 1 });
    expect(seen).toHaveLength(1);
  });

  it("returns the result of a call whose settle failed, logs it, and still records the execution", async () => {
    const errors: string[] = [];
    const logger: Logger = { ...console, error: (message: string) => errors.push(message) } as Logger;
    class Broken extends MemoryExecutionLedger {
      override async settle(): Promise<void> {
        throw new Error("disk full");
      }
    }
    const audit = new MemoryAuditLog();
    const tools = { transfer: tool({ inputSchema: z.object({ to: z.string() }), execute: async () => "sent" }) };
    const ledger = new Broken();
    const wrapped = withLedger(tools, { ledger, threadId: "t1", audit, logger });
    expect(await execOf(wrapped.transfer)({ to: "bob" }, opts("c1"))).toBe("sent");
    expect(errors).toEqual(["kaboo: could not record a tool call's result"]);
    const entries = await audit.entries("t1");
    expect(entries).toMatchObject([{ kind: "execution", claim: "claimed", status: "success", toolUseId: "c1" }]);
    expect(entries[0]).toMatchObject({
      idempotencyKey: executionKey({ threadId: "t1", toolUseId: "c1", input: { to: "bob" } }),
    });
    expect(await verifyAuditTrail(entries, { threadId: "t1" })).toMatchObject({ ok: true, count: 1 });
  });

  it("records every execution in order with its key, though the tool never read it", async () => {
    const audit = new MemoryAuditLog();
    const tools = { transfer: tool({ inputSchema: z.object({ to: z.string() }), execute: async () => "sent" }) };
    const ledger = new MemoryExecutionLedger();
    const run = execOf(withLedger(tools, { ledger, threadId: "t1", audit }).transfer);
    await run({ to: "bob" }, opts("c1"));
    await run({ to: "bob" }, opts("c1"));
    await run({ to: "eve" }, opts("c2"));
    const entries = await audit.entries("t1");
    const k = (toolUseId: string, to: string) => executionKey({ threadId: "t1", toolUseId, input: { to } });
    expect(entries.map((e) => ("claim" in e ? [e.claim, e.idempotencyKey] : e.kind))).toEqual([
      ["claimed", k("c1", "bob")],
      ["done", k("c1", "bob")],
      ["claimed", k("c2", "eve")],
    ]);
    expect(await verifyAuditTrail(entries, { threadId: "t1" })).toMatchObject({ ok: true, count: 3 });
  });
});
