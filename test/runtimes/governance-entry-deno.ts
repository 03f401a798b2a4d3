// Deno entry for the governance tests: one process = one handler instance over a Deno KV file given
// as the first argument; serves on a free port and prints it as one JSON line.
import { DenoKvAuditLog, DenoKvGrantStore, DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { governanceApp } from "./governance-app.js";
import { retryLocked } from "./kv-locked.js";

const kv = await retryLocked(() => Deno.openKv(Deno.args[0]));
const app = governanceApp({
  store: new DenoKvThreadStore(kv),
  grantStore: new DenoKvGrantStore(kv),
  newGrantStore: () => new DenoKvGrantStore(kv),
  newAudit: () => new DenoKvAuditLog(kv),
});
Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port })) }, app);
