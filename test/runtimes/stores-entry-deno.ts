// Deno entry for the Deno KV store tests: `contract <db>` prints the contract's results; `claim
// <db> <thread> <key>` prints one claim's outcome (two processes race with it). One JSON line.
import { DenoKvThreadStore } from "../../src/stores/deno-kv.js";
import { runStoreContract } from "../stores/contract.js";
import { retryLocked } from "./kv-locked.js";

const [mode, path, thread = "t", key = "k"] = Deno.args;
const kv = await retryLocked(() => Deno.openKv(path));
const store = new DenoKvThreadStore(kv);
if (mode === "contract") console.log(JSON.stringify(await runStoreContract(store)));
else console.log(JSON.stringify(await retryLocked(() => store.ledger(thread).claim(key))));
kv.close();
