/**
 * The execution ledger's cost per call, same run, same process: a run of 10 tool calls (one batch)
 * whose tool is claimed and settled in the agent's MemoryExecutionLedger, against the same run with
 * the tool annotated `idempotentHint` (it skips the ledger; its idempotency key is still computed),
 * and the key alone (one SHA-256 of canonical JSON). Goal: claimed / skipped ≤ 1.1.
 *
 * Run: `npx vitest bench --run bench/ledger.bench.ts`
 */
import { bench, describe } from "vitest";
import * as z from "zod/v4";
import { Agent, MemoryExecutionLedger, ScriptedModel, executionKey, tool, type ScriptedTurn } from "../src/index.js";

const CALLS = 10;
let seq = 0;

function agentWith(hinted: boolean): Agent {
  const echo = tool({
    name: "echo",
    description: "echo",
    inputSchema: z.object({ x: z.number(), to: z.string() }),
    ...(hinted ? { annotations: { idempotentHint: true } } : {}),
    callback: ({ x }) => `echo ${x}`,
  });
  // Fresh ids per run: a repeated id would be answered from the ledger instead of running.
  const script = [
    (): ScriptedTurn => ({
      toolCalls: Array.from({ length: CALLS }, (_, i) => ({
        name: "echo",
        input: { x: i, to: "bob" },
        id: `c${++seq}`,
      })),
    }),
    { text: "done" },
  ];
  return new Agent({ model: new ScriptedModel({ script }), tools: [echo], ledger: new MemoryExecutionLedger() });
}

describe(`one run of ${CALLS} tool calls`, () => {
  bench("ledger skipped (idempotentHint): baseline", async () => {
    await agentWith(true).invoke("go", { invocationState: { threadId: "bench" } });
  });
  bench("MemoryExecutionLedger: claim + settle per call", async () => {
    await agentWith(false).invoke("go", { invocationState: { threadId: "bench" } });
  });
});

describe("the key alone", () => {
  bench(`${CALLS} × executionKey (SHA-256 of canonical JSON)`, async () => {
    for (let i = 0; i < CALLS; i++)
      await executionKey({ threadId: "bench", toolUseId: `c${i}`, input: { x: i, to: "bob" } });
  });
});
