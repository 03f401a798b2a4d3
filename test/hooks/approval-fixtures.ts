/** Shared fixtures for the approval hook tests: a bank with a gated transfer tool. */
import * as z from "zod/v4";
import {
  Agent,
  ScriptedModel,
  tool,
  type AgentTool,
  type HookProvider,
  type InterruptResponse,
  type ScriptedTurn,
} from "../../src/index.js";

export interface Bank {
  transfers: { to: string; amount: number }[];
  lookups: number;
  tools: AgentTool[];
}

export function bank(): Bank {
  const b: Bank = { transfers: [], lookups: 0, tools: [] };
  b.tools = [
    tool({
      name: "transfer",
      description: "Send money.",
      inputSchema: z.object({ to: z.string().min(1), amount: z.number().positive() }),
      callback: (input) => {
        b.transfers.push(input);
        return `sent ${input.amount} to ${input.to}`;
      },
    }),
    tool({
      name: "balance",
      description: "Read the balance.",
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
      callback: () => {
        b.lookups++;
        return { balance: 100 };
      },
    }),
  ];
  return b;
}

/** A model that calls the given tools once, then answers with the results it read. */
export function callsThenAnswers(calls: { name: string; input: unknown; id?: string }[]): ScriptedModel {
  let n = 0;
  return new ScriptedModel({
    ids: "sequential",
    script: ({ lastToolResults }): ScriptedTurn => {
      if (lastToolResults.length === 0 && n++ === 0) return { toolCalls: calls };
      return { text: `results: ${JSON.stringify(lastToolResults.map((r) => r.content))}` };
    },
  });
}

export function newAgent(b: Bank, hooks: HookProvider[], model: ScriptedModel): Agent {
  return new Agent({ name: "bank", model, tools: b.tools, hooks });
}

export function answer(id: string, response: unknown): InterruptResponse {
  return { interruptResponse: { interruptId: id, response: response as never } };
}

export function silentLogger() {
  const lines: { level: string; message: string; data?: Record<string, unknown> }[] = [];
  return {
    lines,
    warn: (message: string, data?: Record<string, unknown>) =>
      lines.push({ level: "warn", message, ...(data ? { data } : {}) }),
    error: (message: string, data?: Record<string, unknown>) =>
      lines.push({ level: "error", message, ...(data ? { data } : {}) }),
  };
}
