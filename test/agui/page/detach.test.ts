/**
 * A view that goes away is not a Stop: `detachActiveRun()` (CopilotKit calls it when the person opens another
 * thread, and before each run) leaves the page's run going, and `connectAgent()` in the same tab follows it live.
 */
import type { BaseEvent } from "@ag-ui/core";
import * as z from "zod/v4";
import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/agui/page/session-store.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, MemoryExecutionLedger, ScriptedModel, tool } from "../../../src/index.js";
import { MemoryLocks } from "./reload-world.js";
import { user } from "../fixtures.js";

/** A bank whose transfer waits until the test lets it answer. */
function gatedBank() {
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

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

async function pausedPage() {
  const bank = gatedBank();
  const sessionStore = new MemorySessionStore();
  const agent = new KabooAgent({
    threadId: "t1",
    agent: bank.runner,
    sessionStore,
    ledger: new MemoryExecutionLedger(),
    locks: new MemoryLocks() as unknown as LockManager,
  });
  agent.addMessage(user("pay alice 5"));
  await agent.runAgent();
  const resume = [
    { interruptId: agent.pendingInterrupts[0]!.id, status: "resolved" as const, payload: { approved: true } },
  ];
  return { agent, bank, sessionStore, resume };
}

describe("KabooAgent: a detached view leaves the run going", () => {
  test("detached mid-transfer: the transfer finishes and is recorded as sent, not cancelled", async () => {
    const { agent, bank, sessionStore, resume } = await pausedPage();
    const running = agent.runAgent({ resume });
    await until(() => bank.started.length === 1);
    await agent.detachActiveRun();
    await running;
    bank.open();
    await until(() => bank.sent.length === 1);
    await until(() => JSON.stringify(sessionStore).length > 0);
    const record = async () => (await sessionStore.load("t1"))!;
    for (let i = 0; i < 500 && (await record()).run?.status === "running"; i++)
      await new Promise((r) => setTimeout(r, 5));
    const stored = await record();
    expect(stored.run?.status).not.toBe("running");
    expect(JSON.stringify(stored.messages)).toContain("sent 5 to alice");
    expect(JSON.stringify(stored.messages)).not.toMatch(/cancel|cut off/i);
  });

  test("connectAgent() in the same tab follows the detached run live, to its end", async () => {
    const { agent, bank, resume } = await pausedPage();
    const running = agent.runAgent({ resume });
    await until(() => bank.started.length === 1);
    await agent.detachActiveRun();
    await running;
    const seen: BaseEvent[] = [];
    const watching = agent.connectAgent({}, { onEvent: ({ event }) => void seen.push(event) });
    await until(() => seen.some((e) => e.type === "RUN_STARTED"));
    bank.open();
    await watching;
    expect(bank.sent).toEqual(["alice"]);
    expect(seen.at(-1)?.type).toBe("RUN_FINISHED");
    expect(agent.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: expect.stringContaining("sent 5 to alice"),
    });
  });

  test("abortRun() while following it stops the detached run (the call in flight finishes and is recorded)", async () => {
    const { agent, bank, sessionStore, resume } = await pausedPage();
    const running = agent.runAgent({ resume });
    await until(() => bank.started.length === 1);
    await agent.detachActiveRun();
    await running;
    const watching = agent.connectAgent();
    await new Promise((r) => setTimeout(r, 20));
    agent.abortRun();
    bank.open();
    await watching.catch(() => undefined);
    for (let i = 0; i < 500 && (await sessionStore.load("t1"))?.run?.status === "running"; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect((await sessionStore.load("t1"))?.run?.status).not.toBe("running");
  });
});
