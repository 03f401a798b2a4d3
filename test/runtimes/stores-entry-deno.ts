// Deno entry for the Deno KV store tests: `contract <db>` prints the contract's results; `claim
// <db> <thread> <key>` prints one claim's outcome (two processes race with it). One JSON line.
import { DenoKvThreadStore, type KvLike } from "../../src/stores/deno-kv.js";
import { runStoreContract } from "../stores/contract.js";

declare const Deno: { args: string[]; openKv(path?: string): Promise<KvLike & { close(): void }> };

const [mode, path, thread = "t", key = "k"] = Deno.args;
const kv = await Deno.openKv(path);
const store = new DenoKvThreadStore(kv);
if (mode === "contract") console.log(JSON.stringify(await runStoreContract(store)));
else console.log(JSON.stringify(await store.ledger(thread).claim(key)));
kv.close();
