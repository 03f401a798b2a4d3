/**
 * A new turn sent over an open pause whose batch already ran part of its calls (an un-gated payment
 * ran, a gated wire waits): the pause ends, the wire never runs, and the payment and its result stay
 * in the record; the wire's old approval afterwards runs nothing.
 */
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { createAguiHandler } from "../../../src/agui/index.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, tool } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { quietLogger, resumeBody, send } from "./fixtures.js";

function setup() {
  const ran: string[] = [];
  const store = new MemoryThreadStore();
  const money = (name: string) =>
    tool({
      name,
      description: `${name} money.`,
      inputSchema: z.object({ to: z.string() }),
      callback: ({ to }) => {
        ran.push(`${name} ${to}`);
        return `${name} to ${to} done`;
      },
    });
  const agent = () =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults, lastUserText }) =>
          lastToolResults.length
            ? { text: "done" }
            : lastUserText.startsWith("both")
              ? {
                  toolCalls: [
                    { name: "pay", input: { to: "bob" } },
                    { name: "wire", input: { to: "eve" } },
                  ],
                }
              : { text: "ok" },
      }),
      tools: [money("pay"), money("wire")],
      hooks: [new InterruptHook(["wire"])],
    });
  const handle = createAguiHandler({
    agent,
    stores: { thread: store },
    logger: quietLogger(),
    trust: { principal: () => "ann" },
  });
  return { ran, store, handle };
}

describe("a new turn over a partly run pause", () => {
  test("keeps the payment that ran and its result; the waiting wire never runs", async () => {
    const s = setup();
    const asked = await send(
      s.handle,
      input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "both" }] }),
    );
    expect(asked.interrupts).toHaveLength(1);
    expect(s.ran).toEqual(["pay bob"]);
    const said = { id: "u2", role: "user" as const, content: "never mind" };
    const next = await send(s.handle, input({ threadId: "t", messages: [...asked.messages, said] }));
    expect(next.error).toBeUndefined();
    const record = JSON.stringify((await s.store.load("t")).messages);
    expect(record).toContain("pay to bob done");
    expect(record).toContain('"never mind"');
    const late = await send(s.handle, { ...resumeBody("t", asked, { approved: true }), runId: crypto.randomUUID() });
    expect(late.error?.code).toBe("UNKNOWN_INTERRUPT_ID");
    expect(s.ran).toEqual(["pay bob"]);
  });
});
