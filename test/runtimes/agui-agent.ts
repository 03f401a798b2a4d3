/**
 * The shared bank as the edge handler tests (node, workerd, Deno) meet it: the logic of
 * test/agui/fixtures.ts plus `nap`, a slow tool for heartbeats and aborts, and an optional grant secret.
 */
import type { GrantSecret } from "../../src/grants/signing.js";
import type { Agent, HookProvider } from "../../src/index.js";
import { bankAgent, type Bank } from "../fixtures/bank.js";

export interface EdgeBankOptions {
  secret?: GrantSecret | undefined;
  hooks?: HookProvider[];
}

/**
 * "pay <name> <amount>" → transfer (gated, rememberable per payee); "paint <color>" → the browser
 * tool set_color; "nap <ms>" → a tool that sleeps (and notices an abort); after tool results →
 * "Done: …"; anything else → "You said: …".
 */
export function edgeBank(bank: Bank, options: EdgeBankOptions = {}): Agent {
  return bankAgent(bank, {
    reasoning: true,
    tools: ["nap"],
    gate: { secret: options.secret },
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
}
