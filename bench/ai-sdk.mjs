#!/usr/bin/env node
// `node bench/ai-sdk.mjs [rounds] [runs per round]`: what the AI SDK adapter costs per tool call, as ratios measured in
// one run (alternating rounds; the median of per-round ratios, and the ratio of the best rounds).
// Each run is one `generateText` of the real AI SDK with its mock model: a tool call, its execution,
// the closing text. Against the same run without the adapter:
//   hook:     the AI SDK's own cost of a toolApproval (a function answering not-applicable), for scale;
//   approved: the AI SDK's own cost of a toolApproval answering approved (it then records an automatic
//             approval request and response in the step), for scale: "granted" pays it too;
//   ungated:  withLedger + kabooToolApproval whose rules cover other tools (not-applicable);
//   granted:  the tool gated, a thread grant covering it (approved by grant), through the ledger;
//             then again against "approved": what the adapter adds beyond the approval the AI SDK
//             records for any approved call.
// The adapter is built per request (as a server builds it for each thread and person). On a shared
// two-core machine a ratio moves by about ±0.1 from one run to the next (two identical runs measure
// 0.9–1.1×): run it a few times before believing a change.
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import * as z from "zod/v4";
import { importBundle } from "./bundle.mjs";

const rounds = Number(process.argv[2] ?? 15);
/** Slices each side's runs of a round are measured in, interleaved (the runs are rounded to a multiple). */
const SLICES = 4;
const RUNS = Math.max(1, Math.round(Number(process.argv[3] ?? 300) / SLICES)) * SLICES;
// The bundle holds this package's code alone: "ai" (a peer; the adapter imports its asSchema to check edits)
// is the one this script runs, imported from where it is installed.
const aiExternal = {
  name: "ai-external",
  setup(b) {
    b.onResolve({ filter: /^ai$/ }, () => ({ path: import.meta.resolve("ai"), external: true }));
  },
};
const { kabooToolApproval, withLedger, MemoryExecutionLedger, MemoryGrantStore } = await importBundle(
  `export * from "./src/ai-sdk/index.ts"; export { MemoryExecutionLedger } from "./src/agent/ledger/memory-ledger.ts";
   export { MemoryGrantStore } from "./src/grants/store.ts";`,
  [aiExternal],
);

const usage = {
  inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: undefined, reasoning: undefined },
};
let seq = 0;
function model() {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) =>
      prompt.at(-1)?.role === "tool"
        ? {
            content: [{ type: "text", text: "done" }],
            finishReason: { unified: "stop", raw: "stop" },
            usage,
            warnings: [],
          }
        : {
            content: [
              { type: "tool-call", toolCallId: `c${++seq}`, toolName: "transfer", input: '{"to":"bob","cents":5}' },
            ],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          },
  });
}
const tools = {
  transfer: tool({
    inputSchema: z.object({ to: z.string(), cents: z.number() }),
    execute: async ({ to }) => `sent to ${to}`,
  }),
};
const ledger = new MemoryExecutionLedger();
const grants = new MemoryGrantStore();
await grants.grant({ tool: "transfer", scope: "thread", threadId: "t1" });
const messages = [{ role: "user", content: "pay bob" }];

async function runs(mode, n = RUNS) {
  const m = model();
  for (let i = 0; i < n; i++) {
    const adapter =
      mode === "plain"
        ? {}
        : mode === "hook"
          ? { toolApproval: () => "not-applicable" }
          : mode === "approved"
            ? { toolApproval: () => ({ type: "approved", reason: "approved by a hook" }) }
            : {
                tools: withLedger(tools, { ledger, threadId: "t1" }),
                toolApproval: kabooToolApproval({
                  rules: mode === "granted" ? [{ pattern: "transfer", remember: "thread" }] : ["delete_*"],
                  grants,
                  ledger,
                  threadId: "t1",
                }),
              };
    const r = await generateText({ model: m, tools, messages, stopWhen: stepCountIs(3), ...adapter });
    if (r.text !== "done") throw new Error(`unexpected end: ${r.finishReason}`);
  }
}

/** Rounds of `mode` against `base` (the plain run, or the AI SDK's own approval for scale), alternating. */
async function compare(mode, base = "plain") {
  await runs(base);
  await runs(mode);
  const ratios = [];
  const cpuRatios = [];
  const best = { plain: Number.POSITIVE_INFINITY, adapter: Number.POSITIVE_INFINITY };
  for (let round = 0; round < rounds; round++) {
    const times = { plain: 0, adapter: 0 };
    const cpu = { plain: 0, adapter: 0 };
    // Each side's runs in SLICES slices, interleaved A B B A …: a load that comes and goes on a shared
    // machine falls on both sides alike, where one block per side gave it all to one.
    const first = round % 2 ? [mode, base] : [base, mode];
    for (let slice = 0; slice < SLICES; slice++) {
      for (const m of slice % 2 ? [...first].reverse() : first) {
        const key = m === base ? "plain" : "adapter";
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        await runs(m, RUNS / SLICES);
        const c = process.cpuUsage(c0);
        times[key] += performance.now() - t0;
        // CPU time of this process: what other load on a shared machine skews least.
        cpu[key] += c.user + c.system;
      }
    }
    ratios.push(times.adapter / times.plain);
    cpuRatios.push(cpu.adapter / cpu.plain);
    best.plain = Math.min(best.plain, times.plain);
    best.adapter = Math.min(best.adapter, times.adapter);
  }
  ratios.sort((a, b) => a - b);
  cpuRatios.sort((a, b) => a - b);
  const per = (ms) => ((ms * 1000) / RUNS).toFixed(1);
  const against = base === "plain" ? "plain" : `${base} (the AI SDK's own approval, by a plain hook)`;
  console.log(
    `${mode} against ${against}: ${RUNS} generateText runs (a tool call, its execution, the text) per round, ${rounds} rounds`,
  );
  console.log(`  ${base.padEnd(19)} ${per(best.plain)} µs/run (best round)`);
  console.log(`  with the adapter    ${per(best.adapter)} µs/run (best round)`);
  console.log(
    `  ${`adapter / ${base}`.padEnd(19)} ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}× median of per-round ratios, ${(best.adapter / best.plain).toFixed(3)}× of the best rounds (goal ≤ 1.1)`,
  );
  console.log(
    `  CPU time ratio      ${cpuRatios[Math.floor(cpuRatios.length / 2)].toFixed(3)}× median of per-round ratios`,
  );
}

await compare("hook");
await compare("approved");
await compare("ungated");
await compare("granted");
// What the adapter adds to a granted call beyond the approval the AI SDK records for any approved call.
await compare("granted", "approved");
