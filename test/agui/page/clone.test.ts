import { getEventListeners } from "node:events";
import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { MemoryExecutionLedger } from "../../../src/index.js";
import { bankRunner, user } from "../fixtures.js";
import { newBank } from "../../fixtures/bank.js";

// CopilotKit clones an agent (its suggestions run on a clone); AbstractAgent's own clone() copies no private field,
// so a clone of a KabooAgent could not run at all.
describe("KabooAgent.clone()", () => {
  test("a clone runs, over the same stores and ledger: a pause taken by one is resumed by the other, once", async () => {
    const ledger = newBank();
    const sessionStore = new MemorySessionStore();
    const agent = new KabooAgent({
      threadId: "t1",
      agent: () => bankRunner(ledger),
      sessionStore,
      ledger: new MemoryExecutionLedger(),
    });
    agent.addMessage(user("pay alice 5"));
    await agent.runAgent();
    const interruptId = agent.pendingInterrupts[0]!.id;

    const copy = agent.clone();
    expect(copy).toBeInstanceOf(KabooAgent);
    expect(copy.threadId).toBe("t1");
    expect(copy.pendingInterrupts.map((i) => i.id)).toEqual([interruptId]);
    expect(copy.messages).toEqual(agent.messages);
    expect(copy.messages).not.toBe(agent.messages);
    const resume = [{ interruptId, status: "resolved" as const, payload: { approved: true } }];
    await copy.runAgent({ resume });
    expect(ledger.transfers).toEqual([{ to: "alice", amount: 5 }]);
    // The original's view is out of date: the same answer there runs nothing.
    await agent.runAgent({ resume }).catch(() => undefined);
    expect(ledger.transfers).toHaveLength(1);
  });

  test("a clone's messages and state are its own; its subscribers and middlewares are the original's", async () => {
    const seen: string[] = [];
    const agent = new KabooAgent({ threadId: "t2", agent: () => bankRunner(newBank()) });
    agent.subscribe({ onRunStartedEvent: () => void seen.push("started") });
    agent.use((input, next) => {
      seen.push("middleware");
      return next.run(input);
    });
    agent.addMessage(user("hello"));
    const copy = agent.clone();
    copy.addMessage(user("again"));
    expect(agent.messages).toHaveLength(1);
    await copy.runAgent();
    expect(copy.messages.at(-1)).toMatchObject({ role: "assistant", content: "You said: again" });
    expect(agent.messages).toHaveLength(1);
    expect(seen).toEqual(["middleware", "started"]);
  });
});

describe("KabooAgent.clone() and the original", () => {
  test("a clone's extra run on the same thread (a suggestion) leaves the original able to go on", async () => {
    const sessionStore = new MemorySessionStore();
    const agent = new KabooAgent({
      threadId: "t1",
      agent: () => bankRunner(newBank()),
      sessionStore,
      ledger: new MemoryExecutionLedger(),
    });
    agent.addMessage(user("hello"));
    await agent.runAgent();
    const copy = agent.clone();
    copy.addMessage(user("suggest what to say next"));
    await copy.runAgent();
    agent.addMessage(user("again"));
    const errors: string[] = [];
    await agent
      .runAgent({}, { onRunErrorEvent: ({ event }) => void errors.push(event.message) })
      .catch(() => undefined);
    expect(errors).toEqual([]);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "You said: again" });
  });

  test("with a factory the clone's runner agents are its own; one runner agent (not a factory) is shared", async () => {
    const factory = new KabooAgent({ threadId: "t1", agent: () => bankRunner(newBank()) });
    expect(factory.clone().runnerFor("t1")).not.toBe(factory.runnerFor("t1"));
    const runner = bankRunner(newBank());
    const shared = new KabooAgent({ threadId: "t1", agent: runner, ledger: new MemoryExecutionLedger() });
    expect(shared.clone().runnerFor("t1")).toBe(runner);
  });
});

describe("the Stop's listeners", () => {
  test("one abortController given to many runs does not gather a listener per run", async () => {
    const agent = new KabooAgent({ threadId: "t1", agent: () => bankRunner(newBank()), ledger: null });
    const abortController = new AbortController();
    for (let i = 0; i < 20; i++) {
      agent.addMessage(user(`hello ${i}`));
      await agent.runAgent({ abortController });
    }
    expect(getEventListeners(abortController.signal, "abort").length).toBeLessThanOrEqual(1);
  });
});
