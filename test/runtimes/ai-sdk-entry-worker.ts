// workerd entry for the AI SDK adapter's runtime proof: a stateless chat handler that runs the real
// `generateText` or `streamText` (the AI SDK's own mock language model, scripted by the prompt) with
// kabooToolApproval over a Durable Object grant store and withLedger over a Durable Object thread
// store's ledger. Every request builds everything anew: only the Durable Objects carry state.
import { generateText, stepCountIs, streamText, tool, type ModelMessage } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import * as z from "zod/v4";
import { kabooToolApproval, signApprovalReason, withLedger, type ApprovalScope } from "../../src/ai-sdk/index.js";
import {
  DurableObjectGrantStore,
  DurableObjectThreadStore,
  KabooGrants,
  KabooThread,
  type DurableObjectNamespaceLike,
  type GrantsNamespaceLike,
} from "../../src/stores/durable-object.js";

export { KabooGrants, KabooThread };

interface Env {
  THREAD: DurableObjectNamespaceLike;
  GRANTS: GrantsNamespaceLike;
}

/** Runs of `transfer` in this isolate, per thread (the proof counts executions, not answers). */
const runs = new Map<string, number>();

const usage = {
  inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: undefined, reasoning: undefined },
};

/**
 * The model's turn, read from the prompt alone (a new model per request): after tool results it says
 * "done"; after the n-th user message it calls `transfer` to bob with the id `call-n`.
 */
function turn(prompt: readonly { role: string }[]) {
  if (prompt.at(-1)?.role === "tool") return { text: "done" } as const;
  const n = prompt.filter((m) => m.role === "user").length;
  return { toolCallId: `call-${n}`, toolName: "transfer", input: JSON.stringify({ to: "bob", cents: 5 }) } as const;
}

function model(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const t = turn(prompt);
      if ("text" in t)
        return {
          content: [{ type: "text", text: t.text }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      return {
        content: [{ type: "tool-call", ...t }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    },
    doStream: async ({ prompt }) => {
      const t = turn(prompt);
      const parts: LanguageModelV4StreamPart[] =
        "text" in t
          ? [
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: t.text },
              { type: "text-end", id: "t" },
              { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
            ]
          : [
              { type: "tool-call", ...t },
              { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
            ];
      return { stream: convertArrayToReadableStream([{ type: "stream-start", warnings: [] }, ...parts]) };
    },
  });
}

function bankTools(threadId: string) {
  return {
    transfer: tool({
      inputSchema: z.object({ to: z.string(), cents: z.number() }),
      execute: async ({ to, cents }) => {
        runs.set(threadId, (runs.get(threadId) ?? 0) + 1);
        // Long enough for a second request to arrive while this one holds the claim.
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { sent: cents, to };
      },
    }),
  };
}

interface ChatBody {
  threadId: string;
  principal: string;
  messages: ModelMessage[];
  mode?: "generate" | "stream";
  /** Approvals must be signed (the gate gets {@link SECRET}). */
  signed?: boolean;
  /** `transfer` needs approvals from this many people (four eyes; implies `signed`). */
  approvals?: number;
}

/** The server's approval secret (a Worker secret in an app). */
const SECRET = "the worker's approval secret, long enough";

/** The tool results the model was last sent, as it got them (where an approved call's result goes). */
function lastToolResults(m: MockLanguageModelV4) {
  const calls = [...m.doGenerateCalls, ...m.doStreamCalls];
  const last = calls.at(-1)?.prompt.at(-1);
  if (last?.role !== "tool") return [];
  return last.content.flatMap((p) =>
    p.type === "tool-result" ? [{ toolCallId: p.toolCallId, output: p.output }] : [],
  );
}

async function chat(body: ChatBody, env: Env): Promise<Response> {
  const { threadId, principal, messages } = body;
  const m = model();
  const ledger = new DurableObjectThreadStore(env.THREAD).ledger(threadId);
  const grants = new DurableObjectGrantStore(env.GRANTS);
  const options = {
    model: m,
    messages,
    tools: withLedger(bankTools(threadId), { ledger, threadId }),
    toolApproval: kabooToolApproval({
      rules: [body.approvals ? { pattern: "transfer", approvals: { required: body.approvals } } : "transfer"],
      ...{ grants, ledger, threadId, principal, remember: "always" as const },
      secret: body.signed || body.approvals ? SECRET : undefined,
    }),
    stopWhen: stepCountIs(3),
  };
  if (body.mode === "stream") {
    const result = streamText(options);
    const [text, messages] = await Promise.all([result.text, result.responseMessages]);
    return Response.json({ text, messages, toolResults: lastToolResults(m) });
  }
  const result = await generateText(options).catch((error: unknown) => error as Error);
  // A refused approval (ApprovalSignatureError): the app answers 403 with its code.
  if (result instanceof Error) {
    const code = (result as { code?: unknown }).code;
    if (typeof code === "string") return Response.json({ code, error: String(result) }, { status: 403 });
    throw result;
  }
  return Response.json({ text: result.text, messages: result.responseMessages, toolResults: lastToolResults(m) });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const threadId = url.searchParams.get("thread") ?? "";
    switch (url.pathname) {
      case "/chat":
        return chat((await request.json()) as ChatBody, env);
      case "/sign": {
        // The app's approve endpoint: the person (here: the query) is authenticated, and signs.
        const b = (await request.json()) as { toolCallId: string; input: unknown; scope: ApprovalScope };
        const principal = url.searchParams.get("principal") ?? undefined;
        return new Response(await signApprovalReason({ secret: SECRET, threadId, principal, ...b }));
      }
      case "/runs":
        return Response.json({ transfer: runs.get(threadId) ?? 0 });
      case "/grants": {
        const principal = url.searchParams.get("principal") ?? undefined;
        return Response.json(await new DurableObjectGrantStore(env.GRANTS).grantsFor(threadId, { principal }));
      }
      case "/process":
        // What the entry sees of Node: nothing (Web APIs only).
        return Response.json({ process: typeof (globalThis as { process?: unknown }).process });
      default:
        return new Response("not found", { status: 404 });
    }
  },
};
