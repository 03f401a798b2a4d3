#!/usr/bin/env node
// `node bench/deno-kv-claims.mjs [rounds]`: what a run's claims cost on Deno KV when they name their run
// (a claim that writes checks the thread's holder key in its commit, read once per run: a run that
// lost its thread claims nothing more), against the same claims made outside a run (the claim as it was before), on one
// Deno KV file, in one Deno process: claim + settle of 200 calls per round, rounds interleaved, best of each.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleTo } from "./bundle.mjs";
import { runDenoKv } from "./deno-kv-run.mjs";

const rounds = Number(process.argv[2] ?? 15);
const dir = mkdtempSync(join(tmpdir(), "kaboo-bench-claims-"));
try {
  const script = await bundleTo(
    `
import { DenoKvThreadStore } from "./src/stores/deno-kv.ts";
const kv = await Deno.openKv(Deno.args[0]);
const rounds = Number(Deno.args[1]);
const CALLS = 200;
const store = new DenoKvThreadStore(kv);
const record = await store.load("t");
const lease = { token: "lease-1", runId: "r", resume: false, expiresAt: Date.now() + 3_600_000 };
await store.compareAndSet("t", record.version, { ...record, lease, updatedAt: Date.now() });
const result = { status: "success", content: [{ type: "text", text: "ok" }] };
let seq = 0;
const time = async (ledger) => {
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const key = "k" + seq++;
    const c = await ledger.claim(key);
    await ledger.settle(key, c.token, result);
  }
  return performance.now() - t0;
};
const outside = store.ledger("t");
const held = store.ledger("t", { token: "lease-1" });
await time(outside); await time(held);
const best = { outside: Infinity, held: Infinity };
for (let r = 0; r < rounds; r++) {
  for (const which of r % 2 ? ["held", "outside"] : ["outside", "held"])
    best[which] = Math.min(best[which], await time(which === "held" ? held : outside));
}
console.log(JSON.stringify({ calls: CALLS, outsideUs: best.outside * 1000 / CALLS, heldUs: best.held * 1000 / CALLS }));
kv.close();
`,
    join(dir, "claims-bench.mjs"),
  );
  const g = runDenoKv(script, dir, [String(rounds)]);
  console.log(`Deno KV claims: claim + settle, ${g.calls} calls a round, best of ${rounds} interleaved rounds`);
  console.log(`  outside a run (no holder)      ${g.outsideUs.toFixed(1)} µs/call`);
  console.log(`  a run's (holder read, checked) ${g.heldUs.toFixed(1)} µs/call`);
  console.log(`  run's / outside                ${(g.heldUs / g.outsideUs).toFixed(2)}×`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
