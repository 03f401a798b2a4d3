/**
 * A scripted bank agent for the edge handler tests (node, workerd, Deno): the logic of
 * test/agui/fixtures.ts plus a slow tool for heartbeats and aborts, and an optional grant secret.
 */
import * as z from "zod/v4";
import type { GrantSecret } from "../../src/grants/signing.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, tool, type HookProvider, type ScriptedTurn } from "../../src/index.js";

/** What the tools did, for the test to read back. */
export interface EdgeLedger {
  transfers: { to: string; amount: number }[];
  /** One entry per `nap` call: how it ended. */
  naps: { ms: number; outcome: "running" | "finished" | "aborted" }[];
}

export function newLedger(): EdgeLedger {
  return { transfers: [], naps: [] };
}

export interface EdgeBankOptions {
  secret?: GrantSecret | undefined;
  hooks?: HookProvider[];
}

/**
 * "pay <name> <amount>" → transfer (gated, rememberable per payee); "paint <color>" → the browser
 * tool set_color; "nap <ms>" → a tool that sleeps (and notices an abort); after tool results →
 * "Done: …"; anything else → "You said: …".
 */
export function edgeBank(ledger: EdgeLedger, options: EdgeBankOptions = {}): Agent {
  const model = new ScriptedModel({
    script: ({ lastUserText, lastToolResults, messages }): ScriptedTurn => {
      if (lastToolResults.length)
        return { text: `Done: ${lastToolResults.map((r) => JSON.stringify(r.content)).join("; ")}` };
      if (messages.at(-1)?.role === "assistant") return { text: "ok" };
      const pay = /pay (\w+) (\d+)/.exec(lastUserText);
      if (pay)
        return {
          reasoning: "The user wants a transfer.",
          toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]) } }],
        };
      const paint = /paint (\w+)/.exec(lastUserText);
      if (paint) return { toolCalls: [{ name: "set_color", input: { color: paint[1] } }] };
      const nap = /nap (\d+)/.exec(lastUserText);
      if (nap) return { toolCalls: [{ name: "nap", input: { ms: Number(nap[1]) } }] };
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
  const nap = tool({
    name: "nap",
    description: "Sleep a while.",
    inputSchema: z.object({ ms: z.number().int().nonnegative() }),
    callback: ({ ms }, { signal }) =>
      new Promise<string>((resolve) => {
        const entry = { ms, outcome: "running" as EdgeLedger["naps"][number]["outcome"] };
        ledger.naps.push(entry);
        const timer = setTimeout(() => {
          entry.outcome = "finished";
          resolve(`slept ${ms} ms`);
        }, ms);
        signal.addEventListener(
          "abort",
          () => {
            // The runner may abort its signal once the run is over: only a nap still running was cut short.
            if (entry.outcome !== "running") return;
            clearTimeout(timer);
            entry.outcome = "aborted";
            resolve("woken up");
          },
          { once: true },
        );
      }),
  });
  const subject = (_: string, input: unknown) => ({
    key: `to:${(input as { to: string }).to}`,
    label: `transfers to ${(input as { to: string }).to}`,
  });
  const gate = new InterruptHook([{ pattern: "transfer", remember: "always", subject }], {
    agentName: "bank",
    ...(options.secret !== undefined ? { secret: options.secret } : {}),
  });
  return new Agent({ name: "bank", model, tools: [transfer, nap], hooks: [gate, ...(options.hooks ?? [])] });
}
