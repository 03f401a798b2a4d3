/** A page whose run waits in a transfer the test releases: for the tests of runs that outlive their view. */
import * as z from "zod/v4";
import { expect } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, MemoryExecutionLedger, ScriptedModel, tool } from "../../../src/index.js";
import { MemoryLocks } from "./reload-world.js";
import { user } from "../fixtures.js";

/** A bank whose transfer waits until the test lets it answer (`open`); it fails if its signal aborted. */
export function gatedBank() {
  const sent: string[] = [];
  const started: string[] = [];
  let open = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const transfer = tool({
    name: "transfer",
    description: "Send money.",
    inputSchema: z.object({ to: z.string(), amount: z.number() }),
    callback: async ({ to, amount }, { signal }) => {
      started.push(to);
      await gate;
      if (signal?.aborted) throw new Error("cut off");
      sent.push(to);
      return `sent ${amount} to ${to}`;
    },
  });
  const model = new ScriptedModel({
    script: ({ lastUserText, lastToolResults }) => {
      if (lastToolResults.length) return { text: `Done: ${JSON.stringify(lastToolResults[0]?.content)}` };
      const pay = /pay (\w+) (\d+)/.exec(lastUserText);
      if (pay) return { toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]) } }] };
      return { text: `You said: ${lastUserText}` };
    },
  });
  const runner = () => new Agent({ name: "bank", model, tools: [transfer], hooks: [new InterruptHook(["transfer"])] });
  return { runner, sent, started, open };
}

/** Waits (up to 2.5 s) until `ok` holds, and fails if it never does. */
export const until = async (ok: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 500 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 5));
  expect(await ok()).toBe(true);
};

/**
 * A page agent paused on an approved-to-be transfer to alice on thread t1.
 * @param locks - Its lock manager (`null`: none). Default an in-memory one.
 * @param shared - One runner agent for every thread instead of a factory.
 * @returns The agent, the bank, the session store and the approving resume.
 */
export async function pausedPage(
  locks: LockManager | null = new MemoryLocks() as unknown as LockManager,
  shared = false,
) {
  const bank = gatedBank();
  const sessionStore = new MemorySessionStore();
  const single = bank.runner();
  const agent = new KabooAgent({
    threadId: "t1",
    agent: shared ? single : bank.runner,
    sessionStore,
    ledger: new MemoryExecutionLedger(),
    locks,
  });
  agent.addMessage(user("pay alice 5"));
  await agent.runAgent();
  const resume = [
    { interruptId: agent.pendingInterrupts[0]!.id, status: "resolved" as const, payload: { approved: true } },
  ];
  return { agent, bank, sessionStore, resume };
}

/** The thread's record once its run is no longer running. */
export async function settled(sessionStore: MemorySessionStore, threadId: string) {
  await until(async () => (await sessionStore.load(threadId))?.run?.status !== "running");
  return (await sessionStore.load(threadId))!;
}
