#!/usr/bin/env node
// `node bench/agui.mjs [rounds]`: 100,000 token events to SSE bytes, as in bench/agui.bench.ts, with
// interleaved rounds; the best time of each case and the median of per-round ratios are printed.
// Baseline: JSON.stringify + TextEncoder of the equivalent plain AG-UI events in a loop.
import { importBundle } from "./bundle.mjs";

const { AguiEventMapper, encodeSseEvent, sseStream } = await importBundle(
  `export { AguiEventMapper } from "./src/agui/events.ts";
  export { encodeSseEvent, sseStream } from "./src/agui/edge/request/sse.ts";`,
);

const N = 100_000;
const rounds = Number(process.argv[2] ?? 15);
const encoder = new TextEncoder();
const words = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog. ", "Ünïcödé ✓ "];
const deltas = Array.from({ length: N }, (_, i) => ({
  type: "model",
  event: { type: "contentBlockDelta", index: 0, delta: { type: "text", text: words[i % words.length] } },
}));
const MESSAGE_ID = "3f1c2b9e-6a51-4c43-9a43-3c1f0e0d2a77";
function mapper() {
  const m = new AguiEventMapper(() => MESSAGE_ID);
  m.map({ type: "model", event: { type: "messageStart", role: "assistant" } });
  m.map({ type: "model", event: { type: "contentBlockStart", index: 0, start: { type: "text" } } });
  return m;
}
async function* mapped() {
  const m = mapper();
  for (let i = 0; i < N; i++) yield* m.map(deltas[i]);
  yield { type: "RUN_FINISHED", timestamp: Date.now(), threadId: "t", runId: "r" };
}

const cases = {
  "baseline: JSON.stringify + TextEncoder": () => {
    let bytes = 0;
    for (let i = 0; i < N; i++) {
      const event = {
        type: "TEXT_MESSAGE_CONTENT",
        timestamp: Date.now(),
        messageId: MESSAGE_ID,
        delta: deltas[i].event.delta.text,
      };
      bytes += encoder.encode(`data: ${JSON.stringify(event)}\n\n`).byteLength;
    }
    return bytes;
  },
  "AguiEventMapper → encodeSseEvent": () => {
    let bytes = 0;
    const m = mapper();
    for (let i = 0; i < N; i++) for (const e of m.map(deltas[i])) bytes += encodeSseEvent(e).byteLength;
    return bytes;
  },
  "async generator → sseStream → reader": async () => {
    let bytes = 0;
    const reader = sseStream(mapped(), { heartbeatMs: 0 }).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.byteLength;
    return bytes;
  },
  "async generator alone (no encoding)": async () => {
    let n = 0;
    for await (const _ of mapped()) n++;
    return n;
  },
};
const best = Object.fromEntries(Object.keys(cases).map((k) => [k, Infinity]));
const perRound = [];
for (let r = 0; r < rounds + 2; r++) {
  const times = {};
  for (const [k, run] of Object.entries(cases)) {
    const t = performance.now();
    if (!(await run())) throw new Error(`${k}: nothing produced`);
    times[k] = performance.now() - t;
  }
  if (r < 2) continue; // two warm-up rounds
  for (const k of Object.keys(cases)) best[k] = Math.min(best[k], times[k]);
  perRound.push(times);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const BASE = "baseline: JSON.stringify + TextEncoder";
console.log(
  `\n${N.toLocaleString("en-US")} token events to SSE bytes, best of ${rounds} interleaved rounds; ratios are medians of per-round ratios`,
);
for (const [k, ms] of Object.entries(best)) {
  const ratio = median(perRound.map((t) => t[k] / t[BASE]));
  console.log(`  ${k.padEnd(40)} ${ms.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2)}x baseline`);
}
