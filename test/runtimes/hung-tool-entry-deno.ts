// Deno entry for the hung-tool test: a handler over DenoKvThreadStore on the database file given as the
// first argument (run lease 600 ms, the agent's tool grace 300 ms), with a gated transfer that never
// returns and ignores its signal (a bank API without a timeout). GET /started says how many transfers
// this process started. Prints its port as one JSON line.
import * as z from "zod/v4";
import { createAguiHandler } from "../../src/agui/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, tool } from "../../src/index.js";
import { DenoKvThreadStore, type KvLike } from "../../src/stores/deno-kv.js";

declare const Deno: {
  args: string[];
  openKv(path?: string): Promise<KvLike>;
  serve(
    options: { port: number; hostname: string; onListen(addr: { port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

let started = 0;
const handle = createAguiHandler({
  stores: { thread: new DenoKvThreadStore(await Deno.openKv(Deno.args[0])) },
  timing: { runLeaseMs: 600 },
  logger: { warn: () => {}, error: (m: string, d?: Record<string, unknown>) => console.error(m, d) },
  agent: () =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length ? { text: "Done." } : { toolCalls: [{ name: "transfer", input: { to: "bob" } }] },
      }),
      tools: [
        tool({
          name: "transfer",
          description: "Send money.",
          inputSchema: z.object({ to: z.string() }),
          callback: () => {
            started++;
            return new Promise<string>(() => {});
          },
        }),
      ],
      hooks: [new InterruptHook(["transfer"])],
      toolGraceMs: 300,
    }),
});
Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port })) }, (r) =>
  new URL(r.url).pathname === "/started" ? Promise.resolve(Response.json({ started })) : handle(r),
);
