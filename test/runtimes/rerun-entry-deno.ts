// Deno entry for the re-run claim tests: a handler over DenoKvThreadStore on the database file given
// as the first argument (run lease 600 ms), with a gated transfer that records "started" and "sent" in
// that file (so what ran survives the process) and takes the milliseconds the message names;
// prints its port as one JSON line. GET /bank lists the records, GET /load?thread= reads a thread,
// GET /claim?thread=&key= claims a call in the thread's ledger from outside a run (as a stateless
// handler sharing the ledger does). "pay alice 5 taking 3000 then refund carol 3" makes a second
// model turn after the transfer: an un-gated refund.
import * as z from "zod/v4";
import { createAguiHandler } from "../../src/agui/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, tool } from "../../src/index.js";
import { newBank, transferTool } from "../fixtures/bank.js";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { capturingLogger } from "../fixtures/logger.js";

const kv = await Deno.openKv(Deno.args[0]);
const store = new DenoKvThreadStore(kv);
const record = (what: string, who: string) => kv.set(["bank", Date.now(), crypto.randomUUID()], { what, who });

function agent(): Agent {
  // The shared bank's transfer, recorded in the database (it takes the `ms` the message names).
  const transfer = transferTool(newBank(), {
    onStarted: ({ to }) => record("started", to),
    onSent: ({ to }) => record("sent", to),
  });
  // Not gated: a host may let it run without asking (a remembered grant does the same for a transfer).
  const refund = tool({
    name: "refund",
    description: "Refund a payment.",
    inputSchema: z.object({ to: z.string(), amount: z.number() }),
    callback: async ({ to, amount }) => {
      await record("refunded", to);
      return `refunded ${amount} to ${to}`;
    },
  });
  const model = new ScriptedModel({
    script: ({ lastUserText, lastToolResults }) => {
      const then = / then refund (\w+) (\d+)/.exec(lastUserText);
      if (lastToolResults.length && then && !JSON.stringify(lastToolResults).includes("refunded"))
        return { toolCalls: [{ name: "refund", input: { to: then[1], amount: Number(then[2]) } }] };
      if (lastToolResults.length) return { text: "Done." };
      const both = /pay (\w+) (\d+) and (\w+) (\d+) taking (\d+)/.exec(lastUserText);
      if (both)
        return {
          toolCalls: [
            { name: "transfer", input: { to: both[1], amount: Number(both[2]), ms: Number(both[5]) } },
            { name: "transfer", input: { to: both[3], amount: Number(both[4]), ms: Number(both[5]) } },
          ],
        };
      const pay = /pay (\w+) (\d+) taking (\d+)/.exec(lastUserText);
      if (pay)
        return { toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]), ms: Number(pay[3]) } }] };
      return { text: `You said: ${lastUserText}` };
    },
  });
  return new Agent({
    model,
    tools: [transfer, refund],
    hooks: [new InterruptHook(["transfer"])],
    toolExecutor: "sequential",
  });
}

const handle = createAguiHandler({
  stores: { thread: store },
  timing: { runLeaseMs: 600 },
  logger: capturingLogger(),
  agent,
});

async function serve(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const thread = url.searchParams.get("thread") ?? "";
  if (url.pathname === "/bank") {
    const rows: unknown[] = [];
    for await (const e of kv.list({ prefix: ["bank"] })) rows.push(e.value);
    return Response.json(rows);
  }
  if (url.pathname === "/load") return Response.json(await store.load(thread));
  if (url.pathname === "/claim")
    return Response.json(await store.ledger(thread).claim(url.searchParams.get("key") ?? ""));
  return handle(request);
}

Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port })) }, serve);
