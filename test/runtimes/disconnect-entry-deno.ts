// Deno entry for the disconnect property: the scenario over DenoKvThreadStore on the database file
// given as the first argument; GET /load?thread= and /sent?thread= read back the record and the
// transfers (kept in this test server's memory). Prints its port as one JSON line.
import { createAguiHandler } from "../../src/agui/index.js";
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { scenarioAgent } from "../agui/edge/disconnect-scenario.js";
import { capturingLogger } from "../fixtures/logger.js";

const store = new DenoKvThreadStore(await Deno.openKv(Deno.args[0]));
const sent = new Map<string, string[]>();
const handle = createAguiHandler({
  stores: { thread: store },
  logger: capturingLogger(true),
  agent: (threadId) => scenarioAgent((to) => void sent.set(threadId, [...(sent.get(threadId) ?? []), to])),
});
Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port })) },
  async (request) => {
    const url = new URL(request.url);
    const thread = url.searchParams.get("thread") ?? "";
    if (url.pathname === "/load") return Response.json(await store.load(thread));
    if (url.pathname === "/sent") return Response.json(sent.get(thread) ?? []);
    return handle(request);
  },
);
