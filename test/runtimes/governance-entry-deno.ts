// Deno entry for the governance tests: one process = one handler instance over a Deno KV file given
// as the first argument; serves on a free port and prints it as one JSON line.
import { DenoKvAuditLog, DenoKvGrantStore, DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { governanceApp } from "./governance-app.js";

/** Local Deno KV is SQLite: a second process may find the file locked for a moment. */
async function retryLocked<T>(step: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() > deadline || !String(error).includes("database is locked")) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const kv = await retryLocked(() => Deno.openKv(Deno.args[0]));
const app = governanceApp({
  store: new DenoKvThreadStore(kv),
  grantStore: new DenoKvGrantStore(kv),
  newGrantStore: () => new DenoKvGrantStore(kv),
  newAudit: () => new DenoKvAuditLog(kv),
});
Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(JSON.stringify({ port })) }, app);
