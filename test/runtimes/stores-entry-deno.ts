// Deno entry for the Deno KV store tests: `contract <db>` prints the contract's results; `claim
// <db> <thread> <key>` prints one claim's outcome (two processes race with it). One JSON line.
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { runStoreContract } from "../stores/contract.js";

/**
 * Local Deno KV is SQLite: a second process may find the file locked for a moment. Nothing was written then.
 * Bounded by time, not by a count of 20 ms waits: on a loaded machine the other process can hold the
 * lock (opening and migrating the file) for more than a second.
 */
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

const [mode, path, thread = "t", key = "k"] = Deno.args;
const kv = await retryLocked(() => Deno.openKv(path));
const store = new DenoKvThreadStore(kv);
if (mode === "contract") console.log(JSON.stringify(await runStoreContract(store)));
else console.log(JSON.stringify(await retryLocked(() => store.ledger(thread).claim(key))));
kv.close();
