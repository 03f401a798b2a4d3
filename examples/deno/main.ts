/**
 * A bank assistant as an AG-UI endpoint on Deno: `deno task start`, then point any AG-UI client at
 * it (`new HttpAgent({ url: "http://localhost:8000" })`).
 *
 * Permissions: the network, and env access for the settings below plus
 * `__MINIMATCH_TESTING_PLATFORM__`, which minimatch (the gate's glob matcher) reads when it loads.
 *
 * Transfers pause for approval; the client resumes with `runAgent({ resume: [...] })` and the
 * messages and state it got back. "Always allow" answers arrive as a CUSTOM `kaboo_grants` event
 * with grants signed with GRANT_SECRET: keep them and send them as `forwardedProps.kaboo_grants`.
 */
import { Agent, tool } from "kaboo-workflows";
import { createAguiHandler } from "kaboo-workflows/agui";
import { InterruptHook } from "kaboo-workflows/hooks";
import { OpenAIChatModel } from "kaboo-workflows/models/openai";
import * as z from "zod/v4";

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(options: { port: number }, handler: (request: Request) => Promise<Response>): unknown;
};

const apiKey = Deno.env.get("OPENAI_API_KEY");
const secret = Deno.env.get("GRANT_SECRET");
if (!apiKey || !secret) throw new Error("Set OPENAI_API_KEY and GRANT_SECRET.");

const transfer = tool({
  name: "transfer",
  description: "Send money to a payee.",
  inputSchema: z.object({ to: z.string().min(1), amount: z.number().positive() }),
  callback: ({ to, amount }) => `Sent ${amount} to ${to}.`,
});

const handle = createAguiHandler({
  secret,
  cors: true,
  // A fresh agent per request: the paused session travels in the AG-UI state, not in this process.
  agent: (_threadId, context) =>
    new Agent({
      name: "bank",
      systemPrompt: "You are a careful bank assistant. Use the transfer tool to send money.",
      model: new OpenAIChatModel({ model: Deno.env.get("OPENAI_MODEL") ?? "gpt-4o-mini", apiKey }),
      tools: [transfer],
      hooks: [
        new InterruptHook(
          [{ pattern: "transfer", remember: "always", subject: (_tool, input) => `to:${(input as { to: string }).to}` }],
          { agentName: "bank", ...(context.secret !== undefined ? { secret: context.secret } : {}) },
        ),
      ],
    }),
});

Deno.serve({ port: Number(Deno.env.get("PORT") ?? 8000) }, handle);
