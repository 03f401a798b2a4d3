import { verifyEvents } from "@ag-ui/client";
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, test } from "vitest";
import { runAgui, SESSION_STATE_KEY } from "../../../src/agui/core/run.js";
import { MemoryExecutionLedger, ScriptedModel } from "../../../src/index.js";
import { bankRunner, types, user } from "../fixtures.js";
import { bankAgent, newBank, type Bank } from "../../fixtures/bank.js";
import { input } from "../helpers.js";

async function collect(gen: AsyncIterable<BaseEvent>): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  for await (const e of gen) events.push(e);
  // Every stream must pass @ag-ui/client's own verifier.
  await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  return events;
}

async function paused(ledger: Bank) {
  const agent = bankRunner(ledger);
  const first = input({ messages: [user("pay gina 4")] });
  const events = await collect(runAgui({ agent, input: first }));
  const finished = events.at(-1) as unknown as { outcome: { interrupts: { id: string; toolCallId: string }[] } };
  const snapshot = events.find((e) => e.type === EventType.STATE_SNAPSHOT) as unknown as {
    snapshot: Record<string, unknown>;
  };
  const messages = (
    events.find((e) => e.type === EventType.MESSAGES_SNAPSHOT) as unknown as { messages: RunAgentInput["messages"] }
  ).messages;
  return { agent, interrupt: finished.outcome.interrupts[0]!, state: snapshot.snapshot, messages };
}

/** The paused run resumed with `resume`, its messages and state sent back. */
const resumed = (p: Awaited<ReturnType<typeof paused>>, resume: NonNullable<RunAgentInput["resume"]>) =>
  collect(runAgui({ agent: p.agent, input: input({ messages: p.messages, state: p.state, resume }) }));

const errorCode = (events: BaseEvent[]) =>
  (events.find((e) => e.type === EventType.RUN_ERROR) as unknown as { code?: string } | undefined)?.code;

describe("runAgui resume errors", () => {
  test("an unknown interrupt id → UNKNOWN_INTERRUPT_ID", async () => {
    const ledger = newBank();
    const p = await paused(ledger);
    const events = await resumed(p, [{ interruptId: "nope", status: "resolved", payload: { approved: true } }]);
    expect(errorCode(events)).toBe("UNKNOWN_INTERRUPT_ID");
    expect(ledger.transfers).toEqual([]);
  });

  test("new input while an approval is pending → PENDING_INTERRUPTS", async () => {
    const p = await paused(newBank());
    const events = await collect(
      runAgui({ agent: p.agent, input: input({ messages: [...p.messages, user("hi")], state: p.state }) }),
    );
    expect(errorCode(events)).toBe("PENDING_INTERRUPTS");
  });

  test("a resolved entry without a payload → INVALID_PAYLOAD, and the pause survives for a correct retry", async () => {
    const ledger = newBank();
    const p = await paused(ledger);
    const bad = await resumed(p, [{ interruptId: p.interrupt.id, status: "resolved" }]);
    expect(errorCode(bad)).toBe("INVALID_PAYLOAD");
    const good = await resumed(p, [{ interruptId: p.interrupt.id, status: "resolved", payload: { approved: true } }]);
    expect(errorCode(good)).toBeUndefined();
    expect(ledger.transfers).toHaveLength(1);
  });

  test("a cold agent (edge, reload) resumes from the state snapshot alone; the host reusing the runId and a synthetic tool message change nothing", async () => {
    const ledger = newBank();
    const p = await paused(ledger);
    expect((p.state[SESSION_STATE_KEY] as { interrupt_state: { activated: boolean } }).interrupt_state.activated).toBe(
      true,
    );
    const synthetic = {
      id: "syn",
      role: "tool" as const,
      toolCallId: p.interrupt.toolCallId,
      content: "approved by host",
    };
    const cold = bankRunner(ledger);
    const events = await collect(
      runAgui({
        agent: cold,
        input: input({
          messages: [...p.messages, synthetic],
          state: p.state,
          resume: [{ interruptId: p.interrupt.id, status: "resolved", payload: { approved: true } }],
        }),
      }),
    );
    expect(errorCode(events)).toBeUndefined();
    expect(ledger.transfers).toEqual([{ to: "gina", amount: 4 }]);
    const result = events.find((e) => e.type === EventType.TOOL_CALL_RESULT) as unknown as { content: string };
    expect(result.content).toBe("sent 4 to gina");
  });

  test("a repeated resume runs nothing again: a cold agent gets the recorded result, a warm one knows the pause is over", async () => {
    const ledger = newBank();
    const p = await paused(ledger);
    const executions = new MemoryExecutionLedger();
    const resume = [{ interruptId: p.interrupt.id, status: "resolved" as const, payload: { approved: true } }];
    await collect(
      runAgui({ agent: p.agent, ledger: executions, input: input({ messages: p.messages, state: p.state, resume }) }),
    );
    const again = await collect(
      runAgui({ agent: p.agent, ledger: executions, input: input({ messages: p.messages, state: p.state, resume }) }),
    );
    expect(ledger.transfers).toHaveLength(1);
    expect(errorCode(again)).toBe("UNKNOWN_INTERRUPT_ID");
    const cold = await collect(
      runAgui({
        agent: bankRunner(ledger),
        ledger: executions,
        input: input({ messages: p.messages, state: p.state, resume }),
      }),
    );
    expect(ledger.transfers).toHaveLength(1);
    expect(errorCode(cold)).toBeUndefined();
    const result = cold.find((e) => e.type === EventType.TOOL_CALL_RESULT) as unknown as
      | { content: string }
      | undefined;
    expect(result?.content).toBe("sent 4 to gina");
  });

  test("a cancelled resume entry skips the call", async () => {
    const ledger = newBank();
    const p = await paused(ledger);
    const events = await resumed(p, [{ interruptId: p.interrupt.id, status: "cancelled" }]);
    expect(ledger.transfers).toEqual([]);
    expect(JSON.stringify(events)).toMatch(/skipped/);
  });

  test("an abort mid-run ends with a cancelled outcome and every opened message closed", async () => {
    const agent = bankRunner(newBank());
    const controller = new AbortController();
    const events: BaseEvent[] = [];
    for await (const e of runAgui({
      agent,
      signal: controller.signal,
      input: input({ messages: [user("x".repeat(400))] }),
    })) {
      events.push(e);
      if (e.type === EventType.TEXT_MESSAGE_CONTENT) controller.abort();
    }
    await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
    expect((events.at(-1) as unknown as { outcome: { type: string } }).outcome.type).toBe("cancelled");
    expect(types(events)).toContain("TEXT_MESSAGE_END");
  });
});

describe("runAgui state", () => {
  test("state effects stream as STATE_DELTA and the final STATE_SNAPSHOT carries the new state", async () => {
    const { StateEffectsHook, STATE_EFFECTS_KEY } = await import("../../../src/hooks/state-effects.js");
    const ledger = newBank();
    const agent = bankRunner(ledger);
    agent.hooks.addHook(new StateEffectsHook());
    const grants = [{ tool: "transfer", scope: "always", subjectKey: "to:hal", grantedAt: 1 }];
    const events = await collect(
      runAgui({
        agent,
        prepare: (s) =>
          void (s[STATE_EFFECTS_KEY] = [
            {
              tool: "transfer",
              map: ({ input, state }: { input: { amount: number }; state: { spent?: number } }) => ({
                spent: (state.spent ?? 0) + input.amount,
              }),
            },
          ]),
        input: input({ messages: [user("pay hal 6")], state: { spent: 10 }, forwardedProps: { kaboo_grants: grants } }),
      }),
    );
    expect(ledger.transfers).toHaveLength(1);
    const delta = events.find((e) => e.type === EventType.STATE_DELTA) as unknown as { delta: unknown[] };
    expect(delta.delta).toEqual([{ op: "replace", path: "/spent", value: 16 }]);
    const snap = events.find((e) => e.type === EventType.STATE_SNAPSHOT) as unknown as {
      snapshot: Record<string, unknown>;
    };
    expect(snap.snapshot.spent).toBe(16);
  });
});

describe("runAgui attachments", () => {
  test("image and document parts of user messages fill the ReferenceHook's registry", async () => {
    const { getReferenceRegistry } = await import("../../../src/hooks/references/registry.js");
    let seen: unknown;
    const agent = bankRunner(newBank());
    const png = btoa("fake png bytes");
    const message = {
      id: "u1",
      role: "user" as const,
      content: [
        { type: "text" as const, text: "look" },
        {
          type: "image" as const,
          source: { type: "data" as const, value: png, mimeType: "image/png" },
          metadata: { name: "shot.png" },
        },
        {
          type: "document" as const,
          source: { type: "url" as const, value: "https://example.com/a.pdf", mimeType: "application/pdf" },
        },
      ],
    };
    await collect(
      runAgui({ agent, input: input({ messages: [message] }), prepare: (s) => void (seen = getReferenceRegistry(s)) }),
    );
    const registry = seen as { list(): { id: string; name: string; mimeType: string }[] };
    expect(registry.list().map((r) => [r.id, r.name, r.mimeType])).toEqual([
      ["u1:1", "shot.png", "image/png"],
      ["u1:2", "document-2", "application/pdf"],
    ]);
  });
});

describe("runAgui expired approvals", () => {
  test("resolving an interrupt after its expiresAt → INTERRUPT_EXPIRED, the pause stays, and cancelling continues the thread", async () => {
    const bank = newBank();
    const paid = bank.sent;
    const agent = bankAgent(bank, {
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length
            ? { text: JSON.stringify(lastToolResults[0]!.content) }
            : { toolCalls: [{ name: "transfer", input: { to: "x" } }] },
      }),
      payeeOnly: true,
      gate: { remember: false, agentName: "", ttlSeconds: 0.001 },
    });
    const first = await collect(runAgui({ agent, input: input({ messages: [user("pay x")] }) }));
    const finished = first.at(-1) as unknown as { outcome: { interrupts: { id: string; expiresAt: string }[] } };
    const { id, expiresAt } = finished.outcome.interrupts[0]!;
    expect(typeof expiresAt).toBe("string");
    await new Promise((r) => setTimeout(r, 5));
    const late = await collect(
      runAgui({
        agent,
        input: input({ resume: [{ interruptId: id, status: "resolved", payload: { approved: true } }] }),
      }),
    );
    expect(errorCode(late)).toBe("INTERRUPT_EXPIRED");
    expect(paid).toEqual([]);
    expect(agent.interruptState.pendingIds()).toEqual([id]);
    const cancelled = await collect(
      runAgui({ agent, input: input({ resume: [{ interruptId: id, status: "cancelled" }] }) }),
    );
    expect(errorCode(cancelled)).toBeUndefined();
    expect(paid).toEqual([]);
    expect(JSON.stringify(cancelled)).toMatch(/skipped|expired/);
  });
});
