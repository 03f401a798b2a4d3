import type { BaseEvent } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { MemorySessionStore } from "../../../src/indexeddb/session-store.js";
import { MemoryGrantStore } from "../../../src/grants/store.js";
import { MemoryExecutionLedger } from "../../../src/index.js";
import { bankRunner, types, user } from "../fixtures.js";
import { newBank, type Bank } from "../../fixtures/bank.js";

function page(ledger: Bank, extra: Partial<ConstructorParameters<typeof KabooAgent>[0]> = {}) {
  const events: BaseEvent[] = [];
  const agent = new KabooAgent({ threadId: "t1", agent: () => bankRunner(ledger), ...extra });
  agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
  return { agent, events };
}

describe("KabooAgent", () => {
  test("a text answer streams as AG-UI events the client accepts", async () => {
    const { agent, events } = page(newBank());
    agent.addMessage(user("hello"));
    await agent.runAgent();
    expect(types(events)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "STATE_SNAPSHOT",
      "MESSAGES_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "You said: hello" });
    expect(events.every((e) => Number.isInteger(e.timestamp))).toBe(true);
  });

  test("an approval pauses with an interrupt outcome, then a resume runs the call once", async () => {
    const ledger = newBank();
    const { agent, events } = page(ledger);
    agent.addMessage(user("pay alice 5"));
    await agent.runAgent();
    expect(types(events)).toContain("REASONING_START");
    expect(types(events).slice(-3)).toEqual(["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    const finished = events.at(-1) as unknown as { outcome: { type: string; interrupts: Record<string, unknown>[] } };
    expect(finished.outcome.type).toBe("interrupt");
    const i = agent.pendingInterrupts[0]!;
    expect(i).toMatchObject({ reason: "tool_call", message: "Allow transfers to alice?" });
    expect(i.toolCallId).toBeTruthy();
    expect(i.responseSchema).toMatchObject({
      properties: { approved: { type: "boolean" }, scope: { enum: ["once"] } },
    });
    expect(
      (agent.state as Record<string, { interrupt_state?: { activated: boolean } }>).kaboo_session?.interrupt_state
        ?.activated,
    ).toBe(true);
    expect(ledger.transfers).toEqual([]);
    // The pending call is shown to the front end.
    expect(agent.messages.some((m) => m.role === "assistant" && m.toolCalls?.[0]?.id === i.toolCallId)).toBe(true);

    events.length = 0;
    await agent.runAgent({ resume: [{ interruptId: i.id, status: "resolved", payload: { approved: true } }] });
    expect(ledger.transfers).toEqual([{ to: "alice", amount: 5 }]);
    expect(types(events)).toContain("TOOL_CALL_RESULT");
    expect((events.at(-1) as unknown as { outcome: { type: string } }).outcome.type).toBe("success");
    expect(agent.pendingInterrupts).toEqual([]);
    expect(agent.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: expect.stringContaining("sent 5 to alice"),
    });
    expect((agent.state as Record<string, unknown>).kaboo_session).toBeDefined();
  });

  test("denied: the tool does not run and the model's answer says so", async () => {
    const ledger = newBank();
    const { agent } = page(ledger);
    agent.addMessage(user("pay bob 7"));
    await agent.runAgent();
    await agent.runAgent({
      resume: [{ interruptId: agent.pendingInterrupts[0]!.id, status: "resolved", payload: { approved: false } }],
    });
    expect(ledger.transfers).toEqual([]);
    expect(JSON.stringify(agent.messages.at(-1))).toMatch(/denied/);
  });

  test("edited arguments run instead of the model's", async () => {
    const ledger = newBank();
    const { agent } = page(ledger);
    agent.addMessage(user("pay bob 7"));
    await agent.runAgent();
    await agent.runAgent({
      resume: [
        {
          interruptId: agent.pendingInterrupts[0]!.id,
          status: "resolved",
          payload: { approved: true, editedArgs: { to: "bob", amount: 3 } },
        },
      ],
    });
    expect(ledger.transfers).toEqual([{ to: "bob", amount: 3 }]);
    const call = agent.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : [])).at(-1);
    expect(JSON.parse(call!.function.arguments)).toEqual({ to: "bob", amount: 3 });
  });

  test("a reload: a new page agent restores the pause from the session store and resumes exactly once", async () => {
    const ledger = newBank();
    const sessionStore = new MemorySessionStore();
    const executions = new MemoryExecutionLedger();
    const first = page(ledger, { sessionStore, ledger: executions });
    first.agent.addMessage(user("pay carol 9"));
    await first.agent.runAgent();
    const interruptId = first.agent.pendingInterrupts[0]!.id;

    const second = page(ledger, { sessionStore, ledger: executions });
    await second.agent.connectAgent();
    expect(second.agent.pendingInterrupts.map((i) => i.id)).toEqual([interruptId]);
    expect(second.agent.messages.length).toBeGreaterThan(0);
    await second.agent.runAgent({ resume: [{ interruptId, status: "resolved", payload: { approved: true } }] });
    expect(ledger.transfers).toEqual([{ to: "carol", amount: 9 }]);
    // The same resume again (a double click, a retry) runs nothing.
    await second.agent
      .runAgent({ resume: [{ interruptId, status: "resolved", payload: { approved: true } }] })
      .catch(() => undefined);
    expect(ledger.transfers).toHaveLength(1);
  });

  test("grants: an 'always' answer is stored, and the next call to the same recipient does not ask", async () => {
    const ledger = newBank();
    const grantStore = new MemoryGrantStore();
    const { agent } = page(ledger, { grantStore });
    agent.addMessage(user("pay dave 1"));
    await agent.runAgent();
    const i = agent.pendingInterrupts[0]!;
    expect(i.responseSchema).toMatchObject({ properties: { scope: { enum: ["once", "thread", "always"] } } });
    await agent.runAgent({
      resume: [{ interruptId: i.id, status: "resolved", payload: { approved: true, scope: "always" } }],
    });
    expect(await grantStore.list()).toEqual([
      expect.objectContaining({ tool: "transfer", subjectKey: "to:dave", scope: "always" }),
    ]);
    agent.addMessage(user("pay dave 2"));
    await agent.runAgent();
    expect(agent.pendingInterrupts).toEqual([]);
    expect(ledger.transfers).toEqual([
      { to: "dave", amount: 1 },
      { to: "dave", amount: 2 },
    ]);
    agent.addMessage(user("pay erin 2"));
    await agent.runAgent();
    expect(agent.pendingInterrupts).toHaveLength(1);
  });

  test("a browser tool without a handler ends the run with it pending; the host's result continues the run", async () => {
    const { agent, events } = page(newBank());
    const tools = [
      {
        name: "set_color",
        description: "Paint the page.",
        parameters: { type: "object", properties: { color: { type: "string" } } },
      },
    ];
    agent.addMessage(user("paint blue"));
    await agent.runAgent({ tools });
    const finished = events.at(-1) as unknown as { outcome: { type: string; pendingToolCallIds: string[] } };
    expect(finished.outcome.type).toBe("success");
    expect(finished.outcome.pendingToolCallIds).toHaveLength(1);
    const toolCallId = finished.outcome.pendingToolCallIds[0]!;
    agent.addMessage({ id: "r1", role: "tool", toolCallId, content: "painted blue" });
    await agent.runAgent({ tools });
    expect(agent.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: expect.stringContaining("painted blue"),
    });
  });

  test("a browser tool with a page handler runs in the page", async () => {
    const painted: string[] = [];
    const { agent } = page(newBank(), {
      clientToolHandlers: {
        set_color: (args) => {
          painted.push(String(args.color));
          return "ok";
        },
      },
    });
    agent.addMessage(user("paint red"));
    await agent.runAgent({ tools: [{ name: "set_color", description: "Paint.", parameters: { type: "object" } }] });
    expect(painted).toEqual(["red"]);
  });

  test("capabilities advertise approvals, edits and interrupts", async () => {
    const { agent } = page(newBank());
    expect(await agent.getCapabilities()).toMatchObject({
      humanInTheLoop: { supported: true, approvals: true, approveWithEdits: true, interrupts: true },
    });
  });
});

describe("KabooAgent reload in the middle of a run", () => {
  test("a call that finished before the page went away is not run again by the restored approval", async () => {
    const ledger = newBank();
    // The page "goes away" right after the first save that holds a call's result: later saves are lost.
    class DyingStore extends MemorySessionStore {
      dead = false;
      override async save(snapshot: Parameters<MemorySessionStore["save"]>[0]): Promise<void> {
        if (this.dead) return;
        await super.save(snapshot);
        if (snapshot.messages.some((m) => m.role === "tool")) this.dead = true;
      }
    }
    const sessionStore = new DyingStore();
    // The page's execution ledger outlives the reload (IndexedDB in a browser).
    const executions = new MemoryExecutionLedger();
    const first = page(ledger, { sessionStore, ledger: executions });
    first.agent.addMessage(user("pay ivan 3"));
    await first.agent.runAgent();
    const interruptId = first.agent.pendingInterrupts[0]!.id;
    await first.agent.runAgent({ resume: [{ interruptId, status: "resolved", payload: { approved: true } }] });
    expect(ledger.transfers).toHaveLength(1);
    const stored = await sessionStore.load("t1");
    expect(stored?.messages.filter((m) => m.role === "tool")).toHaveLength(1);

    sessionStore.dead = false;
    const second = page(ledger, { sessionStore, ledger: executions });
    await second.agent.connectAgent();
    // The reloaded page shows the call's result and no longer offers its approval.
    expect(second.agent.pendingInterrupts).toEqual([]);
    expect(second.agent.messages.some((m) => m.role === "tool" && String(m.content).includes("sent 3 to ivan"))).toBe(
      true,
    );
    // Even a stale client that resumes anyway runs nothing: the ledger holds the call as done.
    await second.agent
      .runAgent({ resume: [{ interruptId, status: "resolved", payload: { approved: true } }] })
      .catch(() => undefined);
    expect(ledger.transfers).toHaveLength(1);
  });
});
