/**
 * Replays, resumes and retries through the AG-UI adapter (from a review of the adapter; each case
 * was a failing test first).
 */
import { describe, expect, it } from "vitest";
import { Agent, MemoryExecutionLedger, ScriptedModel } from "../../src/index.js";
import { AfterModelCallEvent } from "../../src/agent/events.js";
import { runAgui } from "../../src/agui/core/run.js";
import { bankRunner } from "./fixtures.js";
import { newBank } from "../fixtures/bank.js";
import { collect, input, interruptsOf, snap, stateOf, user } from "./helpers.js";
// Finding: the "exactly once" record (kaboo_consumed_approvals in agent.state) accepts a reused
// interrupt id when the fingerprint is the same, and the stale-snapshot check only looks at the
// transcript. So an older snapshot + resume replayed (a) to a warm agent whose transcript the client
// has since truncated (edit/regenerate), or (b) to the edge (fresh agent per request, as
// createAguiHandler documents) runs the approved transfer again.

describe("replayed resume", () => {
  it("(a) warm agent: replaying the old resume after the client truncated the conversation does not re-run the call", async () => {
    const ledger = newBank();
    const agent = bankRunner(ledger);
    // The warm agent's own execution ledger (the default) remembers the call.
    const first = await collect(runAgui({ agent, input: input({ messages: [user("pay gina 4")] }) }));
    const resumeInput = input({
      messages: snap(first),
      state: stateOf(first),
      resume: [{ interruptId: interruptsOf(first)[0]!.id, status: "resolved", payload: { approved: true } }],
    });
    await collect(runAgui({ agent, input: resumeInput }));
    expect(ledger.transfers).toHaveLength(1);
    // The person edits an earlier message: the client sends a shorter conversation.
    await collect(runAgui({ agent, input: input({ messages: [user("hello")] }) }));
    // The old resume request is replayed (network retry, back button, a second tab).
    await collect(runAgui({ agent, input: { ...resumeInput, runId: crypto.randomUUID() } }));
    expect(ledger.transfers).toHaveLength(1);
  });

  it("(b) edge with a durable execution ledger: the same resume request delivered twice runs the call once", async () => {
    const ledger = newBank();
    const executions = new MemoryExecutionLedger(); // stands in for a thread store's (Durable Object, Deno KV)
    const first = await collect(
      runAgui({ agent: bankRunner(ledger), input: input({ messages: [user("pay gina 4")] }) }),
    );
    const resumeInput = input({
      messages: snap(first),
      state: stateOf(first),
      resume: [{ interruptId: interruptsOf(first)[0]!.id, status: "resolved", payload: { approved: true } }],
    });
    await collect(runAgui({ agent: bankRunner(ledger), ledger: executions, input: resumeInput }));
    const again = await collect(runAgui({ agent: bankRunner(ledger), ledger: executions, input: resumeInput }));
    expect(ledger.transfers).toHaveLength(1);
    // The second delivery shows the recorded result, as the first did.
    expect(JSON.stringify(again)).toContain("sent 4 to gina");
  });
  it("(c) edge: an older snapshot replayed with the current conversation is refused as stale", async () => {
    const ledger = newBank();
    const first = await collect(
      runAgui({ agent: bankRunner(ledger), input: input({ messages: [user("pay gina 4")] }) }),
    );
    const resume = [
      { interruptId: interruptsOf(first)[0]!.id, status: "resolved" as const, payload: { approved: true } },
    ];
    const second = await collect(
      runAgui({ agent: bankRunner(ledger), input: input({ messages: snap(first), state: stateOf(first), resume }) }),
    );
    expect(ledger.transfers).toHaveLength(1);
    // A second tab still holding the paused state sends it with the *current* conversation
    // (which already holds the call and its result): restoreSessionState's stale check should refuse it.
    await collect(
      runAgui({ agent: bankRunner(ledger), input: input({ messages: snap(second), state: stateOf(first), resume }) }),
      false,
    );
    expect(ledger.transfers).toHaveLength(1);
  });
});
// Finding: on an AG-UI resume, the paused assistant message (reasoning/text + the gated call) is
// converted from the client's messages WITHOUT the call (it has no result), and the loop then appends
// the paused message again from the interrupt context: the transcript (sent to the model) and the
// MESSAGES_SNAPSHOT hold the same assistant message id twice, with duplicated reasoning/text.

describe("AG-UI resume of a paused message with reasoning", () => {
  it("does not duplicate the paused assistant message", async () => {
    const ledger = newBank();
    const agent = bankRunner(ledger);
    const first = await collect(runAgui({ agent, input: input({ messages: [user("pay gina 4")] }) }));
    const interrupt = interruptsOf(first)[0]!;
    const second = await collect(
      runAgui({
        agent,
        input: input({
          messages: snap(first),
          state: stateOf(first),
          resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }],
        }),
      }),
    );
    expect(ledger.transfers).toHaveLength(1);
    const ids = snap(second).map((m) => m.id);
    const assistants = agent.messages.filter((m) => m.role === "assistant");
    const reasoningBlocks = agent.messages.flatMap((m) => m.content).filter((b) => b.type === "reasoning");
    expect({
      duplicateIds: ids.filter((id, i) => ids.indexOf(id) !== i),
      reasoningBlocks: reasoningBlocks.length,
      assistantIds: assistants.map((a) => a.id).filter((id, i, a) => a.indexOf(id) !== i),
    }).toEqual({ duplicateIds: [], reasoningBlocks: 1, assistantIds: [] });
  });
});
// Finding: when a model stream breaks mid-text and an AfterModelCall hook retries (the runner's
// documented retry), the AG-UI mapper never closes the first attempt's TEXT_MESSAGE: the second
// attempt's block at the same index overwrites the open entry, so closeAll() cannot close it and
// @ag-ui/client's verifier rejects RUN_FINISHED.

describe("AG-UI stream after a retried model call", () => {
  it("passes the @ag-ui/client verifier", async () => {
    const model = new ScriptedModel({
      chunkSize: 4,
      script: [{ text: "Hello there, friend", cutAfterEvents: 3 }, { text: "Hello there, friend" }],
    });
    const agent = new Agent({ model });
    agent.hooks.addCallback(AfterModelCallEvent, (e) => {
      if (e.error !== undefined) e.retry = true;
    });
    const events = await collect(runAgui({ agent, input: input({ messages: [user("hi")] }) }), false);
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    await expect(
      collect(
        (async function* () {
          yield* events;
        })(),
      ),
    ).resolves.toBeDefined();
  });
});
