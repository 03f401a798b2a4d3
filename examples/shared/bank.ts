/**
 * The bank assistant both edge examples serve: a gated `transfer` (rememberable per payee) and a
 * model — OpenAI when a key is set, otherwise a scripted one, so the examples run offline.
 *
 * Transfers call the bank's API when `bankApiUrl` is set (with the call's idempotency key, so a
 * bank that honours it never books one twice); otherwise they only answer in text.
 */
import {
  Agent,
  ScriptedModel,
  tool,
  UnauthenticatedError,
  type Model,
  type ScriptedTurn,
  type ToolResultBlock,
} from "kaboo-workflows";
import { InterruptHook } from "kaboo-workflows/hooks";
import { OpenAIChatModel } from "kaboo-workflows/models/openai";
import * as z from "zod/v4";

/** Settings of {@link bankAgent}, from the platform's env. */
export interface BankSettings {
  /** Without it the scripted model answers. */
  openAiApiKey?: string | undefined;
  openAiModel?: string | undefined;
  /** The handler's grant secret (give the gate the same). */
  secret?: string | CryptoKey | undefined;
  /** Where transfers are booked (POST JSON). Default: nowhere. */
  bankApiUrl?: string | undefined;
}

/** "pay ann 5" or "send 5 to ann" → a transfer; after the result, a short confirmation. */
function scriptedBank(): Model {
  return new ScriptedModel({
    script: ({ lastUserText, lastToolResults }): ScriptedTurn => {
      // What the tools said, in their words (a person reads this, not JSON).
      if (lastToolResults.length) return { text: lastToolResults.map(resultText).join(" ") };
      const pay = /pay (\w+) (\d+)/i.exec(lastUserText) ?? /send (\d+) to (\w+)/i.exec(lastUserText);
      if (pay) {
        const [to, amount] = pay[0].toLowerCase().startsWith("pay") ? [pay[1], pay[2]] : [pay[2], pay[1]];
        return { toolCalls: [{ name: "transfer", input: { to, amount: Number(amount) } }] };
      }
      return { text: `You said: ${lastUserText}. Try "pay ann 5".` };
    },
  });
}

function resultText(result: ToolResultBlock): string {
  return result.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join(" ")
    .trim();
}

/**
 * A fresh agent for one request.
 *
 * @param settings - Model key, grant secret, bank API.
 * @returns The agent.
 */
export function bankAgent(settings: BankSettings): Agent {
  const transfer = tool({
    name: "transfer",
    description: "Send money to a payee.",
    inputSchema: z.object({ to: z.string().min(1), amount: z.number().positive() }),
    callback: async ({ to, amount }, { idempotencyKey }) => {
      if (settings.bankApiUrl) {
        const res = await fetch(settings.bankApiUrl, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
          body: JSON.stringify({ to, amount }),
        });
        if (!res.ok) throw new Error(`The bank refused the transfer (${res.status}).`);
      }
      return `Sent ${amount} to ${to}.`;
    },
  });
  const gate = new InterruptHook(
    [{ pattern: "transfer", remember: "always", subject: (_tool, input) => `to:${(input as { to: string }).to}` }],
    { agentName: "bank", ...(settings.secret !== undefined ? { secret: settings.secret } : {}) },
  );
  const model = settings.openAiApiKey
    ? new OpenAIChatModel({ model: settings.openAiModel ?? "gpt-4o-mini", apiKey: settings.openAiApiKey })
    : scriptedBank();
  return new Agent({
    name: "bank",
    systemPrompt: "You are a careful bank assistant. Use the transfer tool to send money.",
    model,
    tools: [transfer],
    hooks: [gate],
  });
}

/**
 * Who the request is for. This example trusts an `x-kaboo-user` header so it runs without an
 * identity provider; a real deployment returns the user of its verified session or token here.
 *
 * @param request - The incoming request.
 * @returns The principal.
 */
export function principalOf(request: Request): string {
  const user = request.headers.get("x-kaboo-user");
  // Its message is the 401's detail, so the caller learns what to send.
  if (!user)
    throw new UnauthenticatedError(
      "Send an x-kaboo-user header naming the user (this example trusts it; a real deployment reads its verified session instead).",
    );
  return user;
}
