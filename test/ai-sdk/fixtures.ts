/**
 * Shared fixtures of the AI SDK adapter's tests: a bank whose tools count their runs, driven by the
 * AI SDK's own mock language model through the real `generateText`.
 */
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage, type ToolSet } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import * as z from "zod/v4";
import type { ExecutionLedger } from "../../src/agent/ledger/ledger.js";
import { kabooToolApproval, withLedger, type KabooToolApprovalOptions } from "../../src/ai-sdk/index.js";

const usage = {
  inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: undefined, reasoning: undefined },
};

/** The calls the model makes, one per user turn, in order; a turn ends in text once tools answered. */
export interface ScriptedCall {
  toolName: string;
  input: Record<string, unknown>;
}

/** What the scripted model answers to one prompt: a text, or the next scripted call. */
function scriptedTurn(calls: ScriptedCall[], counter: { next: number }, prompt: LanguageModelV4CallOptions["prompt"]) {
  if (prompt.at(-1)?.role === "tool" || counter.next >= calls.length) return { text: "done" } as const;
  const call = calls[counter.next++]!;
  return { toolCallId: `call-${counter.next}`, toolName: call.toolName, input: JSON.stringify(call.input) } as const;
}

/**
 * A mock model (generate and stream): after a user message it calls the next scripted tool (ids
 * `call-1`, `call-2`, …); after tool results it answers "done".
 */
export function scriptedModel(calls: ScriptedCall[]): MockLanguageModelV4 {
  const counter = { next: 0 };
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }): Promise<LanguageModelV4GenerateResult> => {
      const turn = scriptedTurn(calls, counter, prompt);
      if ("text" in turn) {
        const content = [{ type: "text" as const, text: turn.text }];
        return { content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
      }
      const { toolCallId, toolName, input } = turn;
      return {
        content: [{ type: "tool-call", toolCallId, toolName, input }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    },
    doStream: async ({ prompt }) => {
      const turn = scriptedTurn(calls, counter, prompt);
      const parts: LanguageModelV4StreamPart[] =
        "text" in turn
          ? [
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: turn.text },
              { type: "text-end", id: "t" },
              { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
            ]
          : [
              { type: "tool-call", ...turn },
              { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
            ];
      return { stream: convertArrayToReadableStream([{ type: "stream-start", warnings: [] }, ...parts]) };
    },
  });
}

/** A bank: `transfer` (gated in the tests) and `balance`, counting their runs. */
export function bank(options: { slow?: Promise<void> } = {}) {
  const runs = { transfer: 0, balance: 0 };
  const tools = {
    transfer: tool({
      inputSchema: z.object({ to: z.string(), cents: z.number() }),
      execute: async ({ to, cents }, o) => {
        runs.transfer++;
        await options.slow;
        return { sent: cents, to, key: (o as { idempotencyKey?: string }).idempotencyKey };
      },
    }),
    balance: tool({
      inputSchema: jsonSchema<Record<string, never>>({ type: "object", properties: {} }),
      metadata: { readOnlyHint: true },
      execute: async () => {
        runs.balance++;
        return { cents: 100 };
      },
    }),
  } satisfies ToolSet;
  return { runs, tools };
}

/** One request of an app: the adapter built for it, `generateText` driven by `model`. */
export async function request(o: {
  model: MockLanguageModelV4;
  tools: ToolSet;
  messages: ModelMessage[];
  ledger: ExecutionLedger;
  approval: Omit<KabooToolApprovalOptions, "ledger">;
}) {
  const { threadId } = o.approval;
  return generateText({
    model: o.model,
    messages: o.messages,
    tools: withLedger(o.tools, { ledger: o.ledger, threadId, audit: o.approval.audit }),
    toolApproval: kabooToolApproval({ ...o.approval, ledger: o.ledger }),
    stopWhen: stepCountIs(5),
  });
}

/** The approval request parts of a result's messages. */
export function approvalRequests(messages: readonly ModelMessage[]) {
  return messages.flatMap((m) =>
    m.role === "assistant" && typeof m.content !== "string"
      ? m.content.filter((p) => p.type === "tool-approval-request")
      : [],
  );
}

/** The tool results the model was last sent (`{ toolCallId, output }`), as the model got them. */
export function lastToolResults(model: MockLanguageModelV4) {
  const prompt = model.doGenerateCalls.at(-1)?.prompt ?? [];
  const last = prompt.at(-1);
  if (last?.role !== "tool") return [];
  return last.content.flatMap((p) =>
    p.type === "tool-result" ? [{ toolCallId: p.toolCallId, output: p.output }] : [],
  );
}

/** The conversation after a person answers the first open approval request of `responseMessages`. */
export function answered(
  before: ModelMessage[],
  responseMessages: ModelMessage[],
  answer: { approved: boolean; reason?: string },
): ModelMessage[] {
  const [req] = approvalRequests(responseMessages);
  if (!req) throw new Error("no approval request to answer");
  return [
    ...before,
    ...responseMessages,
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: req.approvalId, ...answer }] },
  ];
}

/** The person's request the signed-answer, four-eyes and edit tests share, the call it leads to, and the server's secret. */
export const pay: ModelMessage[] = [{ role: "user", content: "pay bob 5 cents" }];
export const toBob = { toolName: "transfer", input: { to: "bob", cents: 5 } };
export const secret = "the server's approval secret, long enough";
