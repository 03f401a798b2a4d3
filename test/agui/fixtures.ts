/** A small bank agent for the AG-UI adapter tests. */
import type { BaseEvent } from "@ag-ui/core";
import * as z from "zod/v4";
import { Agent, ScriptedModel, tool, type ScriptedTurn } from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";

export interface Ledger {
  transfers: { to: string; amount: number }[];
}

/**
 * Rules: "pay <name> <amount>" → transfer; "paint <color>" → the browser tool set_color;
 * after tool results → a sentence naming them.
 */
export function bankRunner(ledger: Ledger): Agent {
  const model = new ScriptedModel({
    script: ({ lastUserText, lastToolResults, messages }): ScriptedTurn => {
      if (lastToolResults.length)
        return { text: `Done: ${lastToolResults.map((r) => JSON.stringify(r.content)).join("; ")}` };
      const last = messages.at(-1);
      if (last?.role === "assistant") return { text: "ok" };
      const pay = /pay (\w+) (\d+)/.exec(lastUserText);
      if (pay)
        return {
          reasoning: "The user wants a transfer.",
          toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]) } }],
        };
      const paint = /paint (\w+)/.exec(lastUserText);
      if (paint) return { toolCalls: [{ name: "set_color", input: { color: paint[1] } }] };
      return { text: `You said: ${lastUserText}` };
    },
  });
  const transfer = tool({
    name: "transfer",
    description: "Send money.",
    inputSchema: z.object({ to: z.string(), amount: z.number().positive() }),
    callback: (input) => {
      ledger.transfers.push(input);
      return `sent ${input.amount} to ${input.to}`;
    },
  });
  const gate = new InterruptHook(
    [
      {
        pattern: "transfer",
        remember: "always",
        subject: (_, i) => ({
          key: `to:${(i as { to: string }).to}`,
          label: `transfers to ${(i as { to: string }).to}`,
        }),
      },
    ],
    { agentName: "bank" },
  );
  return new Agent({ name: "bank", model, tools: [transfer], hooks: [gate] });
}

export function user(text: string) {
  return { id: crypto.randomUUID(), role: "user" as const, content: text };
}

export function types(events: BaseEvent[]): string[] {
  return events.map((e) => e.type);
}
