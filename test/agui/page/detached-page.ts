/** A page whose run waits in a transfer the test releases: for the tests of runs that outlive their view. */
import type { BaseEvent } from "@ag-ui/core";
import { expect } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { MemoryExecutionLedger } from "../../../src/index.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { MemoryLocks } from "./reload-world.js";
import { user } from "../fixtures.js";

/**
 * The shared bank, gated once per call, whose transfer waits until the test lets it answer (`open`);
 * it fails if its signal aborted meanwhile. `runner` makes its agent.
 */
export function gatedBank() {
  const bank = newBank();
  let open = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const runner = () =>
    bankAgent(bank, {
      gate: { remember: false, agentName: "" },
      beforeMoving: async (_, { signal }) => {
        await gate;
        if (signal?.aborted) throw new Error("cut off");
      },
    });
  return Object.assign(bank, { runner, open });
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

/**
 * {@link pausedPage}, resumed, its view detached once the transfer started: the run goes on, its
 * transfer waiting for `bank.open()`.
 */
export async function detachedMidTransfer(...page: Parameters<typeof pausedPage>) {
  const paused = await pausedPage(...page);
  const running = paused.agent.runAgent({ resume: paused.resume });
  await until(() => paused.bank.started.length === 1);
  await paused.agent.detachActiveRun();
  await running;
  return paused;
}

/**
 * Runs `agent`'s next turn, detaches its view after `events` events, then follows the run from the
 * same tab (`connectAgent()`) to its end.
 * @returns The events the watcher saw.
 */
export async function detachAfterThenWatch(agent: KabooAgent, events: number): Promise<BaseEvent[]> {
  const seen: BaseEvent[] = [];
  const running = agent.runAgent({}, { onEvent: ({ event }) => void seen.push(event) });
  await until(() => seen.length >= events);
  await agent.detachActiveRun();
  await running;
  const watched: BaseEvent[] = [];
  await agent.connectAgent({}, { onEvent: ({ event }) => void watched.push(event) });
  return watched;
}

/** The thread's record once its run is no longer running. */
export async function settled(sessionStore: MemorySessionStore, threadId: string) {
  await until(async () => (await sessionStore.load(threadId))?.run?.status !== "running");
  return (await sessionStore.load(threadId))!;
}
