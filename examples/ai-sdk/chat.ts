/**
 * The example's server: a bank assistant on the Vercel AI SDK (`streamText`), its transfers gated by
 * kaboo-workflows' rules, remembered per payee, and run once through the execution ledger. The model is
 * scripted ("pay ann 5"), so it runs with no key; put any AI SDK model in its place.
 */
import { convertToModelMessages, stepCountIs, streamText, tool, type UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { MemoryExecutionLedger, type ExecutionLedger } from "kaboo-workflows";
import { kabooToolApproval, withLedger } from "kaboo-workflows/ai-sdk";
import { MemoryGrantStore, type GrantStore } from "kaboo-workflows/grants";
import * as z from "zod/v4";

/** A transfer the bank booked. */
export interface Booked {
  to: string;
  amount: number;
  idempotencyKey: string;
}

/** Options of {@link createChatHandler}. */
export interface ChatHandlerOptions {
  /** Default: a MemoryGrantStore (forgotten on restart). */
  grants?: GrantStore;
  /** Default: a MemoryExecutionLedger (one process). */
  ledger?: ExecutionLedger;
  /** Where booked transfers are listed. Default: a new array. */
  booked?: Booked[];
}

const usage = {
  inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: undefined, reasoning: undefined },
};

/** What a tool result says, in words (`Sent 5 to ann.`, or why it did not run). */
function resultText(output: { type: string; value?: unknown; reason?: string | undefined }): string {
  if (output.type === "execution-denied") return `Not sent: ${output.reason ?? "the person said no"}.`;
  const value = output.value as { text?: unknown } | string | undefined;
  return typeof value === "string" ? value : String(value?.text ?? JSON.stringify(value));
}

/** After a user's "pay ann 5", a transfer; after tool results, their words. */
function scriptedBank(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const last = prompt.at(-1);
      let text = 'Try "pay ann 5".';
      let call: { to: string; amount: number } | undefined;
      if (last?.role === "tool") {
        text = last.content.map((p) => (p.type === "tool-result" ? resultText(p.output) : "")).join(" ");
      } else if (last?.role === "user") {
        const said = last.content.map((p) => (p.type === "text" ? p.text : "")).join(" ");
        const pay = /pay (\w+) (\d+)/i.exec(said);
        if (pay) call = { to: pay[1]!.toLowerCase(), amount: Number(pay[2]) };
      }
      const finish = (unified: "stop" | "tool-calls") => ({
        type: "finish" as const,
        finishReason: { unified, raw: unified },
        usage,
      });
      const parts = call
        ? [
            {
              type: "tool-call" as const,
              toolCallId: `call-${crypto.randomUUID()}`,
              toolName: "transfer",
              input: JSON.stringify(call),
            },
            finish("tool-calls"),
          ]
        : [
            { type: "text-start" as const, id: "t" },
            { type: "text-delta" as const, id: "t", delta: text },
            { type: "text-end" as const, id: "t" },
            finish("stop"),
          ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of [{ type: "stream-start" as const, warnings: [] }, ...parts]) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
}

/**
 * A `Request → Response` handler for the AI SDK's chat client (`POST { id, messages }`): the chat id is
 * the thread, the `x-user` header the person (default "demo").
 * @param options - Grant store, ledger, where transfers are booked.
 * @returns The handler.
 */
export function createChatHandler(options: ChatHandlerOptions = {}): (request: Request) => Promise<Response> {
  const grants = options.grants ?? new MemoryGrantStore();
  const ledger = options.ledger ?? new MemoryExecutionLedger();
  const booked = options.booked ?? [];
  const model = scriptedBank();
  const tools = {
    transfer: tool({
      description: "Send money to a payee.",
      inputSchema: z.object({ to: z.string().min(1), amount: z.number().positive() }),
      execute: async ({ to, amount }, options) => {
        const { idempotencyKey } = options as typeof options & { idempotencyKey: string };
        booked.push({ to, amount, idempotencyKey });
        return { text: `Sent ${amount} to ${to}.` };
      },
    }),
  };
  const toWhom = (_: string, input: unknown) => {
    const to = (input as { to: string }).to;
    return { key: `to:${to}`, label: `transfers to ${to}` };
  };
  return async function handleChat(request) {
    const body = (await request.json().catch(() => null)) as { id?: unknown; messages?: unknown } | null;
    if (typeof body?.id !== "string" || body.id === "" || !Array.isArray(body.messages))
      return Response.json({ error: "Send { id, messages } as the AI SDK's chat client does." }, { status: 400 });
    const threadId = body.id;
    const messages = body.messages as UIMessage[];
    const principal = request.headers.get("x-user") || "demo";
    const result = streamText({
      model,
      messages: await convertToModelMessages(messages),
      tools: withLedger(tools, { ledger, threadId }),
      toolApproval: kabooToolApproval({
        rules: [{ pattern: "transfer", remember: "always", subject: toWhom }],
        grants,
        ledger,
        threadId,
        principal,
        ttlSeconds: 600,
      }),
      stopWhen: stepCountIs(5),
    });
    return result.toUIMessageStreamResponse({ originalMessages: messages });
  };
}
