#!/usr/bin/env node
// `node bench/checkpoints.mjs [rounds]`: what checkpointing a page's run costs. One run = a model turn
// of 5 tool calls, then the answer, through KabooAgent (runAgent) on a thread that already holds 40
// messages. Interleaved rounds, the best time of each case kept, and the median of per-round ratios.
//   baseline:    KabooAgent without a session store (no checkpoints, nothing saved)
//   end only:    a session store that keeps only the run's end: the checkpoints are built, and dropped
//                by the store (so this is the cost of building them, without keeping them)
//   checkpoints: a session store that keeps every checkpoint (the shipped behaviour)
// Stores are in memory: this measures the CPU the checkpoints add (building the snapshot, one
// structuredClone per save), not IndexedDB's own write time, which a browser spends off the main thread.
import { importBundle } from "./bundle.mjs";

const { Agent, KabooAgent, MemorySessionStore, ScriptedModel, tool, z } = await importBundle(
  `export { Agent, ScriptedModel, tool } from "./src/index.ts";
  export { KabooAgent, MemorySessionStore } from "./src/agui/index.ts";
  export * as z from "zod/v4";`,
);

const CALLS = 5;
const RUNS = 100;
const rounds = Number(process.argv[2] ?? 9);
const history = Array.from({ length: 40 }, (_, i) => ({
  id: `h${i}`,
  role: i % 2 ? "assistant" : "user",
  content: `Earlier message ${i}: ${"lorem ipsum ".repeat(20)}`,
}));

function runner() {
  const echo = tool({
    name: "echo",
    description: "echo",
    inputSchema: z.object({ x: z.number() }),
    callback: ({ x }) => `echo ${x}`,
  });
  let seq = 0;
  const model = new ScriptedModel({
    script: ({ lastToolResults }) =>
      lastToolResults.length
        ? { text: "All done. ".repeat(10) }
        : { toolCalls: Array.from({ length: CALLS }, (_, i) => ({ name: "echo", input: { x: i }, id: `c${++seq}` })) },
  });
  return new Agent({ model, tools: [echo] });
}

class EndOnlyStore extends MemorySessionStore {
  async save(snapshot) {
    if (snapshot.run?.status !== "running") await super.save(snapshot);
  }
}

let saves = 0;
class CountingStore extends MemorySessionStore {
  async save(snapshot) {
    saves++;
    await super.save(snapshot);
  }
}

async function time(makeStore) {
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) {
    const sessionStore = makeStore();
    const agent = new KabooAgent({
      threadId: `t${i}`,
      agent: runner,
      ledger: null,
      locks: null,
      ...(sessionStore ? { sessionStore } : {}),
    });
    agent.setMessages([...history, { id: `u${i}`, role: "user", content: "go" }]);
    await agent.runAgent();
  }
  return (performance.now() - started) / RUNS;
}

const cases = {
  baseline: () => undefined,
  "end only": () => new EndOnlyStore(),
  checkpoints: () => new CountingStore(),
};
const best = Object.fromEntries(Object.keys(cases).map((k) => [k, Number.POSITIVE_INFINITY]));
const ratios = { "end only": [], checkpoints: [] };
for (let r = 0; r < rounds; r++) {
  const ms = {};
  for (const [name, make] of Object.entries(cases)) {
    ms[name] = await time(make);
    best[name] = Math.min(best[name], ms[name]);
  }
  for (const name of Object.keys(ratios)) ratios[name].push(ms[name] / ms.baseline);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const savesPerRun = saves / (rounds * RUNS);
console.log(`one run: ${CALLS} tool calls + the answer, over 40 earlier messages; ${rounds} rounds × ${RUNS} runs`);
for (const name of Object.keys(cases)) {
  const ratio = name === "baseline" ? "1.00×" : `${median(ratios[name]).toFixed(2)}× baseline (median of rounds)`;
  console.log(`${name.padEnd(12)} ${best[name].toFixed(3)} ms/run  ${ratio}`);
}
console.log(`snapshots saved per run with checkpoints: ${savesPerRun.toFixed(1)}`);
