import type { BaseEvent } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { bankRunner, types, user } from "../fixtures.js";
import { newBank, type Bank } from "../../fixtures/bank.js";

function page(ledger: Bank) {
  const events: BaseEvent[] = [];
  const sessionStore = new MemorySessionStore();
  const agent = new KabooAgent({ threadId: "t1", agent: () => bankRunner(ledger), sessionStore });
  agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
  return { agent, events, sessionStore };
}

describe("KabooAgent: a stop that comes before the run's events", () => {
  test("abortRun() right after runAgent() stops that run (the client is still setting it up)", async () => {
    const ledger = newBank();
    const { agent, events, sessionStore } = page(ledger);
    agent.addMessage(user("pay alice 5"));
    const run = agent.runAgent();
    agent.abortRun();
    await run.catch(() => undefined);
    // The run ends as cancelled, which the client accepts.
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } });
    // Nothing was asked and nothing ran: the model's turn never started.
    expect(types(events)).not.toContain("REASONING_START");
    expect(types(events)).not.toContain("TOOL_CALL_START");
    expect(agent.pendingInterrupts).toEqual([]);
    expect(ledger.transfers).toEqual([]);
    expect((await sessionStore.load("t1"))?.run?.status).not.toBe("running");
    // The thread is free again: the next run answers.
    events.length = 0;
    await agent.runAgent();
    expect(agent.pendingInterrupts).toHaveLength(1);
  });

  test("an abortController passed to runAgent() (as HttpAgent takes one) stops the run, even aborted before the call", async () => {
    const ledger = newBank();
    const { agent, events } = page(ledger);
    agent.addMessage(user("hello"));
    const abortController = new AbortController();
    abortController.abort();
    await agent.runAgent({ abortController }).catch(() => undefined);
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } });
    expect(types(events)).not.toContain("TEXT_MESSAGE_CONTENT");
    expect(agent.messages.some((m) => m.role === "assistant")).toBe(false);
  });

  test("abortRun() between two runs does not stop the next one", async () => {
    const { agent } = page(newBank());
    agent.addMessage(user("hello"));
    await agent.runAgent();
    agent.abortRun();
    agent.addMessage(user("again"));
    await agent.runAgent();
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "You said: again" });
  });

  test("a Stop made for a run the client refused to start is forgotten: it does not stop a later run", async () => {
    const { agent, events } = page(newBank());
    agent.addMessage(user("pay alice 5"));
    await agent.runAgent();
    // An answer is owed, so the AG-UI client refuses this run before it starts.
    await expect(agent.runAgent()).rejects.toThrow(/pending interrupt/i);
    agent.abortRun();
    events.length = 0;
    const resume = [
      { interruptId: agent.pendingInterrupts[0]!.id, status: "resolved" as const, payload: { approved: false } },
    ];
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) =>
      agent
        .run({
          threadId: "t1",
          runId: "r-direct",
          messages: agent.messages,
          tools: [],
          context: [],
          state: agent.state,
          forwardedProps: {},
          resume,
        } as never)
        .subscribe({
          next: (e) =>
            void seen.push(
              `${(e as { type: string }).type}:${JSON.stringify((e as { outcome?: unknown }).outcome ?? "")}`,
            ),
          complete: resolve,
          error: reject,
        }),
    );
    expect(seen.at(-1)).not.toContain("cancelled");
  });
});
