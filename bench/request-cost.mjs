#!/usr/bin/env node
// `node bench/request-cost.mjs [rounds] [randomShapes]`: what one request body costs the edge handler.
// Each case is a body of about 1 MiB (the handler's default limit) of one hostile shape, sent to a
// stateless handler with a secret (the configuration that verifies grants and opens seals) and read to
// the end of its SSE answer. Each is timed against a plain 1 MiB user message in the same round; the
// rounds are interleaved, and the figure is the median of the per-round ratios. Random shapes
// (fast-check JSON values, repeated into one field up to 1 MiB) are reported by their worst ratio.
// Not a test: a ratio above 3× is printed as such, and the exit code stays 0.
import fc from "fast-check";
import { importBundle } from "./bundle.mjs";

const { Agent, ScriptedModel, tool, InterruptHook, createAguiHandler } = await importBundle(
  `export { Agent, ScriptedModel, tool } from "./src/index.ts";
  export { InterruptHook } from "./src/hooks/interrupt-hook.ts";
  export { createAguiHandler } from "./src/agui/index.ts";`,
);

const rounds = Number(process.argv[2] ?? 7);
const randomShapes = Number(process.argv[3] ?? 12);
const MiB = 1024 * 1024;
const SECRET = "bench secret";
const quiet = { warn: () => {}, error: () => {} };

const transfer = tool({
  name: "transfer",
  description: "Send money.",
  jsonSchema: { type: "object", properties: { to: { type: "string" } } },
  callback: () => "sent",
});
const handle = createAguiHandler({
  trust: { secret: SECRET },
  logger: quiet,
  agent: (_, { secret }) =>
    new Agent({
      model: new ScriptedModel({ script: () => ({ text: "ok" }) }),
      tools: [transfer],
      hooks: [new InterruptHook([{ pattern: "transfer", remember: "always" }], { secret })],
    }),
});

const body = (over) => ({
  threadId: "bench",
  runId: "r1",
  messages: [{ id: "u1", role: "user", content: "hello" }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
  ...over,
});

/** As many copies of `item` (JSON text) as fit in a ~1 MiB body built by `wrap` from the list's text. */
function fill(itemText, wrap) {
  const room = MiB - Buffer.byteLength(wrap("[]")) - 16;
  const n = Math.max(1, Math.floor(room / (Buffer.byteLength(itemText) + 1)));
  return { text: wrap(`[${Array(n).fill(itemText).join(",")}]`), n };
}
const withGrants = (list) => JSON.stringify(body({ forwardedProps: { kaboo_grants: "@@" } })).replace('"@@"', list);
const at = (key) => (list) => JSON.stringify(body({ [key]: "@@" })).replace('"@@"', list);

/** An object of `keys` keys (short base-36 names, numeric values), as JSON text. */
function wideObject(keys) {
  const parts = [];
  for (let i = 0; i < keys; i++) parts.push(`"${i.toString(36)}":0`);
  return `{${parts.join(",")}}`;
}
/** A state of objects `keys` wide, up to 99,000 values in all. */
function widest(keys) {
  const n = Math.floor(99_000 / (keys + 1));
  return { text: inField("state", `{"o":[${Array(n).fill(wideObject(keys)).join(",")}]}`), n: n * keys };
}
const inField = (key, objectText) => JSON.stringify(body({ [key]: "@@" })).replace('"@@"', objectText);
function deepState() {
  // As deep as the handler admits (64 levels, the state itself one of them), side by side up to the value bound.
  const one = `${'{"a":'.repeat(61)}1${"}".repeat(61)}`;
  const n = Math.floor(99_000 / 62);
  return inField("state", `{"d":[${Array(n).fill(one).join(",")}]}`);
}
// User messages only: a first turn may carry no history the handler did not write (HISTORY_CONFLICT).
const message = (i, text = "hi") => JSON.stringify({ id: `m${i}`, role: "user", content: text });
const toolDef = (i, description = "d") =>
  JSON.stringify({ name: `t${i}`, description, parameters: { type: "object", properties: {} } });
/** `n` copies of `item` in the list `key`, each padded (by `pad(size)`) so the body reaches ~1 MiB. */
function atCap(key, n, make) {
  const probe = make(0, "");
  const room = Math.floor((MiB - 1024) / n) - Buffer.byteLength(probe) - 8;
  const items = Array.from({ length: n }, (_, i) => make(i, "y".repeat(Math.max(0, room))));
  return { text: at(key)(`[${items.join(",")}]`), n };
}
const resumeEntry = (i, text) => JSON.stringify({ interruptId: `x${i}`, status: "resolved", payload: { note: text } });
const contextEntry = (i, text) => JSON.stringify({ description: `d${i}`, value: text });

// What an attacker sent (each refused now, cheaply), then the worst that is still accepted: every
// list at its cap, and the most values and the widest objects the body bounds let through.
const shapes = {
  "100k {} grants, filled to 1 MiB": () => fill("{}", withGrants),
  "200k [] grants, filled to 1 MiB": () => fill("[]", withGrants),
  "49k {} grants (under the value bound)": () => ({
    text: withGrants(`[${Array(49_000).fill("{}").join(",")}]`),
    n: 49_000,
  }),
  "well-formed unsigned grants": () =>
    fill(
      JSON.stringify({ tool: "transfer", subjectKey: "s", scope: "always", grantedAt: 1, signature: "v1.x" }),
      withGrants,
    ),
  "120k-key state": () => ({ text: inField("state", wideObject(120_000)), n: 120_000 }),
  "state of 1,000-key objects": () => widest(1_000),
  "state of 500-key objects (99k values)": () => widest(500),
  "state of 10-key objects (99k values)": () => widest(10),
  "deep state (64 levels, side by side, 99k values)": () => ({ text: deepState(), n: 64 }),
  "many messages": () => fill(message(1), at("messages")),
  "2,000 messages (the cap)": () => atCap("messages", 2_000, message),
  "many tools": () => fill(toolDef(1), at("tools")),
  "128 tools (the cap)": () => atCap("tools", 128, toolDef),
  "many context entries": () => fill(contextEntry(1, "v"), at("context")),
  "256 context entries (the cap)": () => atCap("context", 256, contextEntry),
  "many resume entries": () => fill(resumeEntry(1, ""), at("resume")),
  "256 resume entries (the cap)": () => atCap("resume", 256, resumeEntry),
  "120k-key forwardedProps": () => ({ text: inField("forwardedProps", wideObject(120_000)), n: 120_000 }),
};

const FIELDS = ["state", "forwardedProps", "kaboo_grants", "messages", "tools", "context", "resume"];
function randomShape(seed) {
  const [value] = fc.sample(fc.jsonValue({ maxDepth: 8 }), { seed, numRuns: 1 });
  const field = FIELDS[Math.abs(seed) % FIELDS.length];
  const item = JSON.stringify(value) ?? "null";
  const wrap =
    field === "kaboo_grants"
      ? withGrants
      : field === "state" || field === "forwardedProps"
        ? (list) => JSON.stringify(body({ [field]: "@@" })).replace('"@@"', `{"x":${list}}`)
        : at(field);
  return { name: `random #${seed} in ${field}`, ...fill(item, wrap) };
}

const baseline = JSON.stringify(body({ messages: [{ id: "u1", role: "user", content: "@@" }] }));
const baselineText = baseline.replace("@@", "x".repeat(MiB - Buffer.byteLength(baseline) - 16));

const why = {};
async function timeOne(text, name) {
  const t = performance.now();
  const res = await handle(new Request("http://bench/agui", { method: "POST", body: text }));
  const answer = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200 && name) why[name] = JSON.parse(answer).error;
  else if (name && answer.includes('"RUN_ERROR"')) why[name] = "RUN_ERROR";
  return { ms, status: res.status };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function measure(cases) {
  const ratios = Object.fromEntries(cases.map((c) => [c.name, []]));
  const base = [];
  const status = {};
  for (let r = 0; r < rounds + 1; r++) {
    const b = await timeOne(baselineText);
    for (const c of cases) {
      const { ms, status: s } = await timeOne(c.text, c.name);
      status[c.name] = s;
      if (r > 0) ratios[c.name].push(ms / b.ms); // one warm-up round
    }
    if (r > 0) base.push(b.ms);
  }
  return { ratios, base: median(base), status };
}

const fixed = Object.entries(shapes).map(([name, make]) => ({ name, ...make() }));
const random = Array.from({ length: randomShapes }, (_, i) => randomShape(i * 7919 + 1));
const { ratios, base, status } = await measure(fixed);
console.log(`\nHandler time per ~1 MiB body (secret, no store), median of ${rounds} interleaved rounds`);
console.log(`  baseline: one 1 MiB user message  ${base.toFixed(1)} ms`);
let worst = 0;
for (const c of fixed) {
  const ratio = median(ratios[c.name]);
  worst = Math.max(worst, ratio);
  const size = (Buffer.byteLength(c.text) / MiB).toFixed(2);
  const answer = `HTTP ${status[c.name]}${why[c.name] ? ` ${why[c.name]}` : ""}`.padEnd(20);
  console.log(`  ${c.name.padEnd(40)} ${size} MiB  ${answer} ${ratio.toFixed(2)}x${ratio > 3 ? "  (over 3x)" : ""}`);
}
const r = await measure(random);
const worstRandom = random
  .map((c) => ({ c, ratio: median(r.ratios[c.name]) }))
  .sort((a, b) => b.ratio - a.ratio)
  .slice(0, 3);
console.log(`  random shapes (${random.length}), worst three:`);
for (const { c, ratio } of worstRandom)
  console.log(
    `    ${c.name.padEnd(38)} HTTP ${r.status[c.name]} ${why[c.name] ?? ""}  ${ratio.toFixed(2)}x${ratio > 3 ? "  (over 3x)" : ""}`,
  );
worst = Math.max(worst, worstRandom[0]?.ratio ?? 0);
console.log(`  worst ratio: ${worst.toFixed(2)}x (goal: at most 3x)`);
