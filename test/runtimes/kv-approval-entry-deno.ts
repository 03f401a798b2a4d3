// Deno entry for the locked-database test: many threads on one Deno KV file, each paused on a
// transfer; then two processes answer every approval at the same instant. `pause <db> <log> <n>`
// prints the resume bodies; `approve <db> <log> <bodies> <startAt>` sends them all at startAt and
// prints each run's end. Each transfer that runs appends its thread id to <log>. One JSON line.
import { createAguiHandler } from "../../src/agui/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel } from "../../src/index.js";
import { newBank, transferTool } from "../fixtures/bank.js";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { capturingLogger } from "../fixtures/logger.js";
import { retryLocked } from "./kv-locked.js";

const [mode, db = "", log = "", arg = "", startAt = "0"] = Deno.args;
const kv = await retryLocked(() => Deno.openKv(db));
const store = new DenoKvThreadStore(kv);
const handle = createAguiHandler({
  stores: { thread: store },
  trust: { secret: "kv-approval-secret" },
  logger: capturingLogger(),
  agent: (threadId, { secret }) =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length
            ? { text: "Done" }
            : { toolCalls: [{ name: "transfer", input: { to: "bob", amount: 5 } }] },
      }),
      // The shared bank's transfer; each one that moved money is a line of the log file.
      tools: [
        transferTool(newBank(), { onSent: () => Deno.writeTextFileSync(log, `${threadId}\n`, { append: true }) }),
      ],
      hooks: [new InterruptHook(["transfer"], secret !== undefined ? { secret } : {})],
    }),
});

/** The run's AG-UI events. */
async function send(body: unknown): Promise<Record<string, unknown>[]> {
  const res = await handle(new Request("http://kv.test/agui", { method: "POST", body: JSON.stringify(body) }));
  const text = await res.text();
  if (res.status !== 200) return [{ type: "HTTP", status: res.status, text }];
  return text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

const last = (events: Record<string, unknown>[], type: string) => events.findLast((e) => e.type === type);

if (mode === "pause") {
  const n = Number(arg);
  const bodies = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const threadId = `t${i}`;
      const user = { id: `u${i}`, role: "user", content: "pay bob 5" };
      const base = { threadId, tools: [], context: [], forwardedProps: {} };
      const events = await send({ ...base, runId: `r${i}`, messages: [user], state: {} });
      const finished = last(events, "RUN_FINISHED") as { outcome?: { interrupts?: { id: string }[] } } | undefined;
      const id = finished?.outcome?.interrupts?.[0]?.id;
      if (!id) throw new Error(`thread ${threadId} did not pause: ${JSON.stringify(events.at(-1))}`);
      const messages = (last(events, "MESSAGES_SNAPSHOT") as { messages: unknown[] }).messages;
      const resume = [{ interruptId: id, status: "resolved", payload: { approved: true } }];
      return { ...base, runId: `a${i}`, messages, state: {}, resume };
    }),
  );
  console.log(JSON.stringify(bodies));
} else {
  const bodies = JSON.parse(Deno.readTextFileSync(arg)) as { threadId: string }[];
  await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
  const ends = await Promise.all(
    bodies.map(async (body) => {
      const events = await send(body);
      const error = last(events, "RUN_ERROR") as { code?: string; message?: string } | undefined;
      const http = last(events, "HTTP");
      return {
        threadId: body.threadId,
        error: error ? { code: error.code, message: error.message } : http,
        finished: !!last(events, "RUN_FINISHED"),
      };
    }),
  );
  console.log(JSON.stringify(ends));
}
kv.close();
