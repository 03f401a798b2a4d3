/**
 * A Stop in the middle of an approved batch of two transfers: the transfer executing finishes and
 * is recorded with its real result, the other never runs, not on this run and not on the same
 * answers sent again, the run ends cancelled (the model is not asked again, however fast it would
 * answer), and the audit trail holds exactly the one execution.
 */
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { MemoryAuditLog, ScriptedModel } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { deferred } from "../../agent/helpers.js";
import { bankAgent, newBank } from "../../fixtures/bank.js";
import { input } from "../helpers.js";
import { post, quietLogger, send } from "./fixtures.js";

function setup() {
  const started = deferred();
  const gate = deferred();
  const store = new MemoryThreadStore();
  const audit = new MemoryAuditLog();
  const bank = newBank();
  const agent = () =>
    bankAgent(bank, {
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length
            ? { text: "done" }
            : {
                toolCalls: [
                  { name: "transfer", input: { to: "bob" } },
                  { name: "transfer", input: { to: "carol" } },
                ],
              },
      }),
      payeeOnly: true,
      beforeMoving: async () => {
        started.resolve();
        await gate.promise;
      },
      gate: { remember: false, agentName: "" },
      toolExecutor: "sequential",
    });
  const handle = createAguiHandler({
    agent,
    stores: { thread: store, audit },
    trust: { principal: () => "ann" },
    logger: quietLogger(),
  });
  return { sent: bank.sent, started, gate, store, audit, handle };
}

describe("a Stop in an approved batch", () => {
  test("the executing transfer finishes and is recorded; the other never runs, also on the answers sent again", async () => {
    const s = setup();
    const say = { id: crypto.randomUUID(), role: "user" as const, content: "pay both" };
    const asked = await send(s.handle, input({ threadId: "t", messages: [say] }));
    expect(asked.interrupts).toHaveLength(2);
    const resume = asked.interrupts.map((i) => ({
      interruptId: i.id,
      status: "resolved" as const,
      payload: { approved: true },
    }));
    const body = input({ threadId: "t", messages: asked.messages, state: asked.state, resume });
    const running = send(s.handle, body);
    await s.started.promise;
    expect((await s.handle(post({ kaboo_cancel: { threadId: "t" } }))).status).toBe(202);
    s.gate.resolve();
    const stopped = await running;
    expect(stopped.outcome).toBe("cancelled");
    expect(s.sent).toHaveLength(1);
    const results = stopped.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(results.some((c) => c.includes(`sent to ${s.sent[0]}`))).toBe(true);
    await send(s.handle, { ...body, runId: crypto.randomUUID() });
    const next = await send(
      s.handle,
      input({
        threadId: "t",
        messages: [...stopped.messages, { id: crypto.randomUUID(), role: "user", content: "ok" }],
      }),
    );
    expect(next.error).toBeUndefined();
    expect(s.sent).toHaveLength(1);
    const executions = (await s.audit.entries("t")).filter((e) => e.kind === "execution");
    expect(executions).toHaveLength(1);
    expect(JSON.stringify((await s.store.load("t")).messages)).toContain(`sent to ${s.sent[0]}`);
  });
});
