#!/usr/bin/env node
// `npm run bench:strands [repetitions]`: the cost of kaboo-workflows/strands per tool-loop cycle on a real
// Strands TS agent (@strands-agents/sdk from bench/peers, installed there when missing). The same loop as
// bench:peers (one `echo` call per model turn for N turns, then a text answer; a scripted Model subclass,
// no network) on: `bare` (the Strands agent alone), `hooks` (kabooPlugin with the hook stack, no ledger)
// and `full` (the hook stack and the execution ledger, the default). Every measurement is its own process,
// the variants interleaved and rotated. Prints median µs per cycle and the ratios to `bare` (goal ≤ 1.1×).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const peers = join(here, "peers");
const variants = ["bare", "hooks", "full"];

if (process.argv[2] === "--child") await child(process.argv[3], Number(process.argv[4]), process.argv[5]);
else await parent(Math.max(1, Number(process.argv[2] ?? 5)));

async function parent(reps) {
  if (!existsSync(join(peers, "node_modules/@strands-agents/sdk"))) {
    console.log("Installing the peer SDKs in bench/peers …");
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: peers, stdio: "inherit" });
  }
  const { bundleTo } = await import("./bundle.mjs");
  mkdirSync(join(peers, ".tmp"), { recursive: true });
  const bundle = await bundleTo(
    `export { kabooPlugin } from "./src/strands/index.ts";
     export { EventPublisher, InterruptHook, MaxToolCallsGuard, StopGuard, ToolNameSanitizer } from "./src/hooks/index.ts";`,
    join(peers, ".tmp/kaboo-strands.mjs"),
  );
  const sizes = [50, 500];
  const samples = new Map();
  for (let r = 0; r < reps; r++) {
    const order = variants.map((_, i) => variants[(i + r) % variants.length]);
    for (const n of sizes)
      for (const v of order) {
        const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", v, String(n), bundle], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        });
        const key = `${v}@${n}`;
        samples.set(key, [...(samples.get(key) ?? []), JSON.parse(out.trim().split("\n").at(-1)).us]);
      }
    process.stderr.write(`repetition ${r + 1}/${reps} done\n`);
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  console.log(`Strands TS agent, µs per tool-loop cycle (median of ${reps} processes each):`);
  for (const n of sizes) {
    const bare = median(samples.get(`bare@${n}`));
    const row = variants.map((v) => {
      const us = median(samples.get(`${v}@${n}`));
      return `${v} ${us.toFixed(1)}${v === "bare" ? "" : ` (${(us / bare).toFixed(2)}×)`}`;
    });
    console.log(`  N=${n}: ${row.join(", ")}`);
  }
}

async function child(variant, n, bundle) {
  const sdkEntry = join(peers, "node_modules/@strands-agents/sdk/dist/src/index.node.js");
  const strands = await import(pathToFileURL(sdkEntry).href);
  const lib = await import(pathToFileURL(bundle).href);
  // The same scripted model as bench:peers (the peers' copy of the SDK, so one Model class).
  const { ScriptedModel } = await import("./peers/strands.mjs");
  const { Agent, FunctionTool, NullConversationManager } = strands;
  const echo = new FunctionTool({
    name: "echo",
    description: "Echoes its input.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    callback: ({ text }) => text,
  });
  const transfer = new FunctionTool({
    name: "transfer",
    description: "Never called: gated, so the gate is evaluated on every call.",
    inputSchema: { type: "object", properties: { to: { type: "string" } } },
    callback: () => "sent",
  });
  const plugins = (m) =>
    variant === "bare"
      ? []
      : [
          lib.kabooPlugin(strands, {
            hooks: [
              new lib.InterruptHook(["transfer"]),
              new lib.MaxToolCallsGuard({ maxCalls: m + 10 }),
              new lib.ToolNameSanitizer(),
              new lib.EventPublisher(() => {}, "bench"),
              new lib.StopGuard(() => false),
            ],
            ledger: variant === "full" ? undefined : false,
          }),
        ];
  async function run(m) {
    const agent = new Agent({
      model: new ScriptedModel(m),
      tools: [echo, transfer],
      printer: false,
      conversationManager: new NullConversationManager(),
      plugins: plugins(m),
    });
    const result = await agent.invoke("Echo ping, many times.");
    if (result.stopReason !== "endTurn" || agent.messages.length !== 2 * m + 2)
      throw new Error(
        `strands ${variant}: unexpected end ${result.stopReason} after ${agent.messages.length} messages`,
      );
  }
  await run(200);
  if (n <= 500) await run(n);
  const runs = [];
  for (let k = Math.max(1, Math.floor(1000 / n)); k > 0; k--) {
    const started = performance.now();
    await run(n);
    runs.push(((performance.now() - started) * 1000) / n);
  }
  runs.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({ us: runs[runs.length >> 1] })}\n`);
}
