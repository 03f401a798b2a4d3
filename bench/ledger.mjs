#!/usr/bin/env node
// `node bench/ledger.mjs [rounds]`: the execution ledger's cost per tool call, as in
// bench/ledger.bench.ts, with interleaved rounds and the best time of each variant kept, so other
// load on the machine skews little. One run = one model turn of 10 tool calls + the final answer.
//   skipped: the tool is annotated idempotentHint (no claim/settle; the call's text is computed, its
//            idempotency key only if the tool reads it)
//   memory:  the default MemoryExecutionLedger claims and settles every call
//   key:     executionKey alone (one synchronous SHA-256 of canonical JSON per call)
//   none:    a build with the key functions stubbed (executionKey, callText, keyOfCall) and the tool
//            skipping the ledger: no ledger cost at all
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleTo } from "./bundle.mjs";

const dir = mkdtempSync(join(tmpdir(), "kaboo-bench-"));
// Two builds of the same source: as shipped, and with the key functions stubbed to constants, so that a
// tool that skips the ledger there is the runner without any ledger cost (no text, no hash, no claim).
async function bundle(name, stubKey) {
  const outfile = join(dir, `${name}.mjs`);
  const stub = {
    name: "stub-execution-key",
    setup(b) {
      b.onLoad({ filter: /src[\\/]agent[\\/]ledger[\\/]ledger\.ts$/ }, async (args) => {
        const text = await readFile(args.path, "utf8");
        const start = text.indexOf("export function executionKey");
        return {
          contents: `${text.slice(0, start)}${STUBS}`,
          loader: "ts",
        };
      });
    },
  };
  await bundleTo(`export * from "./src/index.ts"; export * as z from "zod/v4";`, outfile, stubKey ? [stub] : []);
  return import(pathToFileURL(outfile).href);
}
const STUBS = `export function executionKey(_parts: ExecutionKeyParts): string { return "kw1-none"; }
export function callText(_parts: ExecutionKeyParts): string { return "[]"; }
export function keyOfCall(_text: string): string { return "kw1-none"; }
`;
const shipped = await bundle("shipped", false);
const bare = await bundle("bare", true);
rmSync(dir, { recursive: true, force: true });

const CALLS = 10;
const RUNS = 200;
const rounds = Number(process.argv[2] ?? 15);
let seq = 0;

function agentWith(hinted, lib = shipped) {
  const { Agent, MemoryExecutionLedger, ScriptedModel, tool, z } = lib;
  const echo = tool({
    name: "echo",
    description: "echo",
    inputSchema: z.object({ x: z.number(), to: z.string() }),
    ...(hinted ? { annotations: { idempotentHint: true } } : {}),
    callback: ({ x }) => `echo ${x}`,
  });
  const script = [
    () => ({
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

const variants = {
  none: async () => {
    for (let r = 0; r < RUNS; r++) await agentWith(true, bare).invoke("go", { invocationState: { threadId: "bench" } });
  },
  skipped: async () => {
    for (let r = 0; r < RUNS; r++) await agentWith(true).invoke("go", { invocationState: { threadId: "bench" } });
  },
  memory: async () => {
    for (let r = 0; r < RUNS; r++) await agentWith(false).invoke("go", { invocationState: { threadId: "bench" } });
  },
  key: async () => {
    for (let r = 0; r < RUNS; r++)
      for (let i = 0; i < CALLS; i++)
        await shipped.executionKey({ threadId: "bench", toolUseId: `c${i}`, input: { x: i, to: "bob" } });
  },
};
const best = Object.fromEntries(Object.keys(variants).map((k) => [k, Number.POSITIVE_INFINITY]));
for (const fn of Object.values(variants)) await fn(); // warm up
for (let round = 0; round < rounds; round++) {
  for (const [name, fn] of Object.entries(variants)) {
    const t0 = performance.now();
    await fn();
    best[name] = Math.min(best[name], performance.now() - t0);
  }
}
const perCall = (ms) => (ms * 1000) / (RUNS * CALLS);
console.log(`${RUNS} runs × ${CALLS} calls, best of ${rounds} interleaved rounds`);
console.log(`none (no ledger)    ${perCall(best.none).toFixed(2)} µs/call`);
console.log(`skipped (text only) ${perCall(best.skipped).toFixed(2)} µs/call`);
console.log(`memory ledger       ${perCall(best.memory).toFixed(2)} µs/call`);
console.log(`key alone           ${perCall(best.key).toFixed(2)} µs/call`);
console.log(`memory / skipped    ${(best.memory / best.skipped).toFixed(3)}×`);
console.log(`memory / none       ${(best.memory / best.none).toFixed(3)}×  (goal ≤ 1.1)`);
