// Deno entry for the reattach test: a handler over DenoKvThreadStore on the database file given as
// the first argument, serving a slowly streamed story; prints its port as one JSON line. Two of these
// on one file are two isolates of one deployment.
import { createAguiHandler } from "../../src/agui/index.js";
import { Agent, ScriptedModel } from "../../src/index.js";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { capturingLogger } from "../fixtures/logger.js";

const store = new DenoKvThreadStore(await Deno.openKv(Deno.args[0]));
const handle = createAguiHandler({
  stores: { thread: store },
  logger: capturingLogger(true),
  agent: () =>
    new Agent({
      model: new ScriptedModel({ script: () => ({ text: "a long story ".repeat(30) }), chunkSize: 8, delayMs: 15 }),
    }),
});
Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port })) }, handle);
