/**
 * The agent: a KabooAgent running in the page, with a scripted model (no key, no network) and an
 * approval gate on `transfer`. Paused approvals are kept in IndexedDB, so a reload resumes them.
 */
import * as z from "zod/v4";
import { Agent, ScriptedModel, type ScriptedTurn, tool } from "kaboo-workflows";
import { IndexedDbSessionStore, KabooAgent } from "kaboo-workflows/agui";
import { InterruptHook } from "kaboo-workflows/hooks";

/** What the transfer tool did, kept in localStorage so a test can count runs across reloads. */
export function transfersDone(): { to: string; amount: number }[] {
  return JSON.parse(localStorage.getItem("transfers") ?? "[]");
}

const transfer = tool({
  name: "transfer",
  description: "Send money to someone.",
  inputSchema: z.object({ to: z.string(), amount: z.number().positive() }),
  callback: ({ to, amount }) => {
    localStorage.setItem("transfers", JSON.stringify([...transfersDone(), { to, amount }]));
    return `sent ${amount} to ${to}`;
  },
});

function script({
  lastUserText,
  lastToolResults,
}: {
  lastUserText: string;
  lastToolResults: { status: string }[];
}): ScriptedTurn {
  if (lastToolResults.length)
    return { text: lastToolResults[0]!.status === "success" ? "The transfer is done." : "I did not send it." };
  const pay = /pay (\w+) (\d+)/i.exec(lastUserText);
  if (pay) return { toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]) } }] };
  return { text: `You said: ${lastUserText}` };
}

/** One KabooAgent for the page's thread. */
export function makeAgent(threadId: string): KabooAgent {
  return new KabooAgent({
    threadId,
    agent: () =>
      new Agent({
        model: new ScriptedModel({ script }),
        tools: [transfer],
        hooks: [
          new InterruptHook([{ pattern: "transfer", subject: (_, i) => `transfers to ${(i as { to: string }).to}` }]),
        ],
      }),
    sessionStore: new IndexedDbSessionStore(),
  });
}
