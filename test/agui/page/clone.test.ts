import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/agui/page/session-store.js";
import { MemoryExecutionLedger } from "../../../src/index.js";
import { bankRunner, user, type Ledger } from "../fixtures.js";

// CopilotKit clones an agent (its suggestions run on a clone); AbstractAgent's own clone() copies no private field,
// so a clone of a KabooAgent could not run at all.
describe("KabooAgent.clone()", () => {
  test("a clone runs, over the same stores and ledger: a pause taken by one is resumed by the other, once", async () => {
    const ledger: Ledger = { transfers: [] };
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
    const agent = new KabooAgent({ threadId: "t2", agent: () => bankRunner({ transfers: [] }) });
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
