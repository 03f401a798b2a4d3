#!/usr/bin/env node
// `node bench/models.mjs`: the 50,000-chunk streams of bench/models-fixtures.ts through
// eventsource-parser alone, eventsource-parser + JSON.parse, and each provider. Rounds are
// interleaved; the best time of each case and the median of per-round ratios are printed, so other
// load on the machine skews little.
// The sources are bundled with esbuild first (Node cannot import the .ts files directly).
import { importBundle } from "./bundle.mjs";

const m = await importBundle(
  `export * from "./bench/models-fixtures.ts";
  export { OpenAIChatModel } from "./src/models/openai.ts";
  export { AnthropicModel } from "./src/models/anthropic.ts";`,
);

const rounds = Number(process.argv[2] ?? 15);
const streams = {
  openai: { pieces: m.openAIChunks(), model: (f) => new m.OpenAIChatModel({ model: "m", fetch: f, retry: false }) },
  anthropic: {
    pieces: m.anthropicChunks(),
    model: (f) => new m.AnthropicModel({ model: "m", maxTokens: 1, fetch: f, retry: false }),
  },
};
for (const [name, s] of Object.entries(streams)) {
  const model = s.model(m.fetchOf(s.pieces));
  const cases = {
    "eventsource-parser alone": () => m.bareParser(s.pieces, false),
    "eventsource-parser + JSON.parse": () => m.bareParser(s.pieces, true),
    [`${name} model.stream`]: () => m.drain(model.stream([], { toolSpecs: [] })),
  };
  const best = Object.fromEntries(Object.keys(cases).map((k) => [k, Infinity]));
  const perRound = [];
  for (let r = 0; r < rounds + 2; r++) {
    const times = {};
    for (const [k, run] of Object.entries(cases)) {
      const t = performance.now();
      await run();
      times[k] = performance.now() - t;
    }
    if (r < 2) continue; // two warm-up rounds
    for (const k of Object.keys(cases)) best[k] = Math.min(best[k], times[k]);
    perRound.push(times);
  }
  // Ratios within one round (cases run back to back) and their median: steadier than ratios of
  // bests when other work comes and goes on the machine.
  const ratio = (k, of) => median(perRound.map((t) => t[k] / t[of]));
  console.log(
    `\n${name}: ${s.pieces.length} chunks, best of ${rounds} interleaved rounds; ratios are medians of per-round ratios`,
  );
  for (const [k, ms] of Object.entries(best)) {
    console.log(
      `  ${k.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms  ${ratio(k, "eventsource-parser alone").toFixed(2)}x parser  ${ratio(k, "eventsource-parser + JSON.parse").toFixed(2)}x parser+JSON`,
    );
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
