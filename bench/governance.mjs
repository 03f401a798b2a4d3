#!/usr/bin/env node
// `node bench/governance.mjs [rounds]`: what governed approvals cost, as ratios measured in one run
// (alternating rounds; the median of per-round ratios, and the ratio of the best rounds, so other load
// on the machine skews little).
//   audit:  one approved call (the question, the answer, the call) with the audit trail on
//           (MemoryAuditLog: three hash-chained entries), against the same run without it.
//   grants: grantsFor(thread, { principal }) on a server store (DenoKvGrantStore on a Deno KV
//           file, in Deno) against the MemoryGrantStore, in the same Deno process; 20 grants each.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleTo, importBundle } from "./bundle.mjs";
import { runDenoKv } from "./deno-kv-run.mjs";

const rounds = Number(process.argv[2] ?? 15);

/** Times `fn(false)` and `fn(true)` in alternating order each round; the median of per-round ratios and the best times. */
async function compare(fn) {
  await fn(false);
  await fn(true);
  const ratios = [];
  const best = { plain: Number.POSITIVE_INFINITY, audited: Number.POSITIVE_INFINITY };
  for (let round = 0; round < rounds; round++) {
    const times = {};
    for (const audited of round % 2 ? [true, false] : [false, true]) {
      const t0 = performance.now();
      await fn(audited);
      times[audited ? "audited" : "plain"] = performance.now() - t0;
    }
    ratios.push(times.audited / times.plain);
    best.plain = Math.min(best.plain, times.plain);
    best.audited = Math.min(best.audited, times.audited);
  }
  ratios.sort((a, b) => a - b);
  return { best, median: ratios[Math.floor(ratios.length / 2)] };
}

/** Prints one comparison. */
function report(title, runs, { best, median }) {
  const per = (ms) => ((ms * 1000) / runs).toFixed(1);
  console.log(title);
  console.log(`  without audit   ${per(best.plain)} µs/approved call (best round)`);
  console.log(`  with audit      ${per(best.audited)} µs/approved call (best round)`);
  console.log(
    `  audited / plain ${median.toFixed(3)}× median of per-round ratios, ${(best.audited / best.plain).toFixed(3)}× of the best rounds (goal ≤ 1.1)`,
  );
}

// ---- audit cost per approved call, the runner alone (Node) ----
const lib = await importBundle(
  `export * from "./src/index.ts"; export { InterruptHook } from "./src/hooks/interrupt-hook.ts"; export * as z from "zod/v4";`,
);
const RUNS = 300;
let seq = 0;
async function approvedCalls(audited) {
  const { Agent, InterruptHook, MemoryAuditLog, ScriptedModel, tool, z } = lib;
  const audit = audited ? new MemoryAuditLog() : undefined;
  const pay = tool({
    name: "transfer",
    description: "moves money",
    inputSchema: z.object({ to: z.string(), cents: z.number() }),
    callback: ({ to }) => `sent to ${to}`,
  });
  for (let r = 0; r < RUNS; r++) {
    const id = `c${++seq}`;
    const script = [{ toolCalls: [{ name: "transfer", input: { to: "bob", cents: 500 }, id }] }, { text: "done" }];
    const agent = new Agent({
      model: new ScriptedModel({ script }),
      tools: [pay],
      hooks: [new InterruptHook(["transfer"])],
      ...(audit ? { audit } : {}),
    });
    const state = () => ({ invocationState: { threadId: `t${seq}`, kabooPrincipal: "ann" } });
    const paused = await agent.invoke("pay bob", state());
    const answers = paused.interrupts.map((i) => ({
      interruptResponse: { interruptId: i.id, response: { approved: true } },
    }));
    await agent.invoke(answers, state());
  }
}
report(
  `audit trail, the runner alone: ${RUNS} approved calls (pause, resume, call) per round, ${rounds} rounds`,
  RUNS,
  await compare(approvedCalls),
);

// ---- the same through the edge handler with a thread store (what an app at the edge runs) ----
const edge = await importBundle(
  `export * from "./src/index.ts"; export { InterruptHook } from "./src/hooks/interrupt-hook.ts";
   export { createAguiHandler } from "./src/agui/index.ts"; export { MemoryThreadStore } from "./src/stores/memory.ts";
   export * as z from "zod/v4";`,
);
const HANDLER_RUNS = 100;
const quiet = { warn() {}, error() {} };
async function handlerCalls(audited) {
  const { Agent, InterruptHook, MemoryAuditLog, MemoryThreadStore, ScriptedModel, createAguiHandler, tool, z } = edge;
  const pay = tool({
    name: "transfer",
    description: "moves money",
    inputSchema: z.object({ to: z.string(), cents: z.number() }),
    callback: ({ to }) => `sent to ${to}`,
  });
  const handle = createAguiHandler({
    agent: () =>
      new Agent({
        model: new ScriptedModel({
          script: ({ lastToolResults }) =>
            lastToolResults.length
              ? { text: "done" }
              : { toolCalls: [{ name: "transfer", input: { to: "bob", cents: 500 } }] },
        }),
        tools: [pay],
        hooks: [new InterruptHook(["transfer"], { logger: quiet })],
      }),
    stores: { thread: new MemoryThreadStore() },
    logger: quiet,
    trust: { principal: () => "ann" },
    timing: { heartbeatMs: 0 },
    ...(audited ? { audit: new MemoryAuditLog() } : {}),
  });
  const post = async (body) => {
    const res = await handle(new Request("http://bench/agui", { method: "POST", body: JSON.stringify(body) }));
    return (await res.text())
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)));
  };
  for (let r = 0; r < HANDLER_RUNS; r++) {
    const threadId = `h${++seq}`;
    const base = { threadId, state: {}, tools: [], context: [], forwardedProps: {} };
    const first = await post({
      ...base,
      runId: `r${seq}a`,
      messages: [{ id: `m${seq}`, role: "user", content: "pay bob" }],
    });
    const finished = first.find((e) => e.type === "RUN_FINISHED");
    const messages = first.findLast((e) => e.type === "MESSAGES_SNAPSHOT").messages;
    const resume = finished.outcome.interrupts.map((i) => ({
      interruptId: i.id,
      status: "resolved",
      payload: { approved: true },
    }));
    await post({ ...base, runId: `r${seq}b`, messages, resume });
  }
}
report(
  `audit trail at the edge: ${HANDLER_RUNS} approved calls through createAguiHandler + MemoryThreadStore per round, ${rounds} rounds`,
  HANDLER_RUNS,
  await compare(handlerCalls),
);

// ---- grant lookup, server store vs memory (Deno) ----
const dir = mkdtempSync(join(tmpdir(), "kaboo-bench-gov-"));
try {
  const script = await bundleTo(
    `
import { MemoryGrantStore } from "./src/grants/store.ts";
import { DenoKvGrantStore } from "./src/stores/deno-kv/grants.ts";
const kv = await Deno.openKv(Deno.args[0]);
const LOOKUPS = 500;
const rounds = Number(Deno.args[1]);
const memory = new MemoryGrantStore();
const server = new DenoKvGrantStore(kv);
for (const store of [memory, server])
  for (let i = 0; i < 20; i++) await store.grant({ tool: "tool" + i, scope: "always", principal: "ann" });
const time = async (store) => {
  const t0 = performance.now();
  for (let i = 0; i < LOOKUPS; i++) await store.grantsFor("t", { principal: "ann" });
  return performance.now() - t0;
};
await time(memory); await time(server);
const best = { memory: Infinity, server: Infinity };
for (let r = 0; r < rounds; r++) {
  best.memory = Math.min(best.memory, await time(memory));
  best.server = Math.min(best.server, await time(server));
}
console.log(JSON.stringify({ lookups: LOOKUPS, memoryUs: best.memory * 1000 / LOOKUPS, serverUs: best.server * 1000 / LOOKUPS }));
kv.close();
`,
    join(dir, "grants-bench.mjs"),
  );
  const g = runDenoKv(script, dir, [String(rounds)]);
  console.log(
    `grant lookup: grantsFor of 20 grants, ${g.lookups} lookups, best of ${rounds} interleaved rounds (Deno)`,
  );
  console.log(`  MemoryGrantStore        ${g.memoryUs.toFixed(1)} µs/lookup`);
  console.log(`  DenoKvGrantStore (file) ${g.serverUs.toFixed(1)} µs/lookup`);
  console.log(`  server / memory         ${(g.serverUs / g.memoryUs).toFixed(1)}×`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
