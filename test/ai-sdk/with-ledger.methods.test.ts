/**
 * withLedger with a memory ledger whose methods were replaced on the instance (instrumentation wrapping them,
 * a test double) or by a subclass: asked through those methods, with execution keys, every call; and a ledger
 * that changes from one form to the other between calls still knows each call once (text and key are one record).
 */
import { tool, type ToolExecutionOptions } from "ai";
import { describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { executionKey, type ClaimOptions, type LedgerResult } from "../../src/agent/ledger/ledger.js";
import { MemoryExecutionLedger } from "../../src/agent/ledger/memory-ledger.js";
import { CallOutcomeUnknownError, withLedger } from "../../src/ai-sdk/index.js";
import { CallInProgressError } from "../../src/errors.js";
import { capturingLogger } from "../fixtures/logger.js";

const input = { to: "bob", cents: 5 };
const opts = (toolCallId: string): ToolExecutionOptions<unknown> => ({ toolCallId, messages: [], context: undefined });
type Exec = (input: unknown, options: ToolExecutionOptions<unknown>) => Promise<unknown>;
const key = (toolUseId: string) => executionKey({ threadId: "t1", toolUseId, input });
const proto = MemoryExecutionLedger.prototype;

function bank(gate?: Promise<void>) {
  let runs = 0;
  const tools = {
    transfer: tool({
      inputSchema: z.object({ to: z.string(), cents: z.number() }),
      execute: async ({ cents }) => {
        runs++;
        await gate;
        return { sent: cents, run: runs };
      },
    }),
  };
  const run = (ledger: MemoryExecutionLedger) =>
    (withLedger(tools, { ledger, threadId: "t1", logger: capturingLogger() }).transfer as unknown as { execute: Exec })
      .execute;
  return { runs: () => runs, run };
}

/** Wraps `method` on the instance (as instrumentation would), recording what it is asked with. */
function wrap(ledger: MemoryExecutionLedger, method: "claim" | "settle" | "release", asked: string[]) {
  const original = proto[method] as (...a: unknown[]) => Promise<unknown>;
  Object.assign(ledger, {
    [method]: (k: unknown, ...rest: unknown[]) => {
      asked.push(`${method} ${String(k)}`);
      return original.call(ledger, k, ...rest);
    },
  });
}

describe("withLedger and a memory ledger's methods replaced", () => {
  it.each(["claim", "settle", "release"] as const)(
    "an instance whose %s is replaced is asked with execution keys; a replay runs zero more times",
    async (method) => {
      const { runs, run } = bank();
      const ledger = new MemoryExecutionLedger();
      const asked: string[] = [];
      wrap(ledger, method, asked);
      expect(await run(ledger)(input, opts("c1"))).toEqual({ sent: 5, run: 1 });
      expect(await run(ledger)(input, opts("c1"))).toEqual({ sent: 5, run: 1 });
      expect(runs()).toBe(1);
      for (const line of asked) expect(line).toBe(`${method} ${key("c1")}`);
      if (method !== "release") expect(asked.length).toBeGreaterThan(0);
    },
  );

  it("a ledger that is wrapped, then unwrapped, between calls knows each call once", async () => {
    const { runs, run } = bank();
    const ledger = new MemoryExecutionLedger();
    await run(ledger)(input, opts("c1"));
    const asked: string[] = [];
    wrap(ledger, "claim", asked);
    wrap(ledger, "settle", asked);
    expect(await run(ledger)(input, opts("c1"))).toEqual({ sent: 5, run: 1 });
    await run(ledger)(input, opts("c2"));
    expect(asked).toEqual([`claim ${key("c1")}`, `claim ${key("c2")}`, `settle ${key("c2")}`]);
    for (const m of ["claim", "settle"] as const) delete (ledger as unknown as Record<string, unknown>)[m];
    expect(await run(ledger)(input, opts("c2"))).toEqual({ sent: 5, run: 2 });
    expect(await run(ledger)(input, opts("c1"))).toEqual({ sent: 5, run: 1 });
    expect(runs()).toBe(2);
  });

  it("a call claimed by its text and settled through a settle wrapped meanwhile is done: a replay reads it", async () => {
    let open!: () => void;
    const { runs, run } = bank(new Promise<void>((resolve) => (open = resolve)));
    const ledger = new MemoryExecutionLedger();
    const first = run(ledger)(input, opts("c1"));
    const asked: string[] = [];
    wrap(ledger, "settle", asked);
    open();
    expect(await first).toEqual({ sent: 5, run: 1 });
    expect(asked).toEqual([`settle ${key("c1")}`]);
    delete (ledger as unknown as Record<string, unknown>).settle;
    expect(await run(ledger)(input, opts("c1"))).toEqual({ sent: 5, run: 1 });
    expect(runs()).toBe(1);
  });

  it("a call in flight under one form is in progress under the other; a crash left claimed is not run again", async () => {
    let open!: () => void;
    const { runs, run } = bank(new Promise<void>((resolve) => (open = resolve)));
    const ledger = new MemoryExecutionLedger();
    const first = run(ledger)(input, opts("c1"));
    wrap(ledger, "claim", []);
    await expect(run(ledger)(input, opts("c1"))).rejects.toBeInstanceOf(CallInProgressError);
    open();
    await first;
    // A crash between claim and settle: the settle never lands.
    const crashed = new MemoryExecutionLedger();
    Object.assign(crashed, {
      settle: async (_k: string, _t: string, _r: LedgerResult) => {
        throw new Error("crashed");
      },
    });
    const after = bank();
    await after.run(crashed)(input, opts("c9"));
    delete (crashed as unknown as Record<string, unknown>).settle;
    // Its claim still held (in progress within the lease, unknown after): never run again.
    for (let i = 0; i < 2; i++) {
      const error = await after
        .run(crashed)(input, opts("c9"))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error instanceof CallInProgressError || error instanceof CallOutcomeUnknownError).toBe(true);
    }
    expect([runs(), after.runs()]).toEqual([1, 1]);
  });

  it("a subclass overriding claim and release is asked by key; a replay runs zero more times", async () => {
    const asked: string[] = [];
    class Releasing extends MemoryExecutionLedger {
      override async release(k: string, token: string): Promise<void> {
        asked.push(`release ${k}`);
        return super.release(k, token);
      }
      override async claim(k: string, options?: ClaimOptions) {
        asked.push(`claim ${k}`);
        return super.claim(k, options);
      }
    }
    const { runs, run } = bank();
    const ledger = new Releasing();
    await run(ledger)(input, opts("c1"));
    await run(ledger)(input, opts("c1"));
    expect(asked).toEqual([`claim ${key("c1")}`, `claim ${key("c1")}`]);
    expect(runs()).toBe(1);
  });
});
