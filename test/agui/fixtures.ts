/** The AG-UI adapter tests' view of the shared bank, and small event helpers. */
import type { BaseEvent } from "@ag-ui/core";
import type { Agent } from "../../src/index.js";
import { bankAgent, type Bank } from "../fixtures/bank.js";

/**
 * The shared bank as the AG-UI adapter tests meet it: "pay <name> <amount>" → transfer (explained
 * first, gated, rememberable per payee with a label); "paint <color>" → the browser tool set_color;
 * after tool results → a sentence naming them.
 */
export function bankRunner(bank: Bank): Agent {
  return bankAgent(bank, { reasoning: true });
}

export function user(text: string) {
  return { id: crypto.randomUUID(), role: "user" as const, content: text };
}

export function types(events: BaseEvent[]): string[] {
  return events.map((e) => e.type);
}
