/**
 * A bank assistant as an AG-UI endpoint on Cloudflare Workers. Any AG-UI client talks to it:
 * `new HttpAgent({ url: "https://kaboo-agui.<you>.workers.dev" })`.
 *
 * Transfers pause for approval (`RUN_FINISHED` with an `interrupt` outcome); the client answers
 * with `runAgent({ resume: [{ interruptId, status: "resolved", payload: { approved, scope } }] })`,
 * sending back the messages and state it got (the paused session lives in the state, so any
 * isolate can resume it). "Always allow" answers come back as a CUSTOM `kaboo_grants` event with
 * grants signed with GRANT_SECRET: store them and send them as `forwardedProps.kaboo_grants`.
 */
import { Agent, tool } from "kaboo-workflows";
import { createAguiHandler } from "kaboo-workflows/agui";
import { InterruptHook } from "kaboo-workflows/hooks";
import { OpenAIChatModel } from "kaboo-workflows/models/openai";
import * as z from "zod/v4";

interface Env {
  OPENAI_API_KEY: string;
  OPENAI_MODEL?: string;
  /** HMAC secret for remembered approvals (`wrangler secret put GRANT_SECRET`). */
  GRANT_SECRET: string;
  ALLOWED_ORIGIN?: string;
}

const transfer = tool({
  name: "transfer",
  description: "Send money to a payee.",
  inputSchema: z.object({ to: z.string().min(1), amount: z.number().positive() }),
  // A real worker would call the bank's API here.
  callback: ({ to, amount }) => `Sent ${amount} to ${to}.`,
});

function bankAgent(env: Env, secret: string | CryptoKey | undefined): Agent {
  // The gate checks grant signatures itself too; the handler cannot configure it for us.
  const gate = new InterruptHook(
    [{ pattern: "transfer", remember: "always", subject: (_tool, input) => `to:${(input as { to: string }).to}` }],
    { agentName: "bank", ...(secret !== undefined ? { secret } : {}) },
  );
  return new Agent({
    name: "bank",
    systemPrompt: "You are a careful bank assistant. Use the transfer tool to send money.",
    model: new OpenAIChatModel({ model: env.OPENAI_MODEL ?? "gpt-4o-mini", apiKey: env.OPENAI_API_KEY }),
    tools: [transfer],
    hooks: [gate],
  });
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    // Cheap to build; built per request because its options come from `env`.
    const handle = createAguiHandler({
      secret: env.GRANT_SECRET,
      cors: env.ALLOWED_ORIGIN ? { origin: env.ALLOWED_ORIGIN } : false,
      // Every request gets a fresh agent: nothing is shared between isolates or requests.
      agent: (_threadId, { secret }) => bankAgent(env, secret),
    });
    return handle(request);
  },
};
