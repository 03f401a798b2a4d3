/**
 * Who asked, in the audit trail: a `request` entry names the person whose conversation asked the question
 * (the thread's owner), not the approver whose answer drove the run that showed it; who drove that run is
 * its `drivenBy`. Four eyes (`required: 2`, `forbidRequester`): ann asks, bob approves round 0, and round
 * 1's request is still ann's; after carol's approval the run she drove asks an ordinary question, also ann's.
 */
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { createAguiHandler } from "../../../src/agui/index.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, MemoryAuditLog, ScriptedModel, tool, verifyAuditTrail } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { quietLogger, resumeBody, send, type Turn } from "./fixtures.js";

function setup() {
  const ran: string[] = [];
  const audit = new MemoryAuditLog();
  const agent = () =>
    new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults, lastUserText, messages }) => {
          const notified = messages.some((m) => m.content.some((b) => b.type === "toolUse" && b.name === "notify"));
          if (lastToolResults.length && !notified) return { toolCalls: [{ name: "notify", input: { to: "ann" } }] };
          if (lastToolResults.length) return { text: "done" };
          const pay = /wire (\w+) (\d+)/.exec(lastUserText);
          return pay
            ? { toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]) } }] }
            : { text: "hi" };
        },
      }),
      tools: [
        tool({
          name: "transfer",
          description: "Send money.",
          inputSchema: z.object({ to: z.string(), amount: z.number() }),
          callback: () => (ran.push("transfer"), "sent"),
        }),
        tool({
          name: "notify",
          description: "Tell someone.",
          inputSchema: z.object({ to: z.string() }),
          callback: () => (ran.push("notify"), "told"),
        }),
      ],
      hooks: [
        new InterruptHook([
          {
            pattern: "transfer",
            approvals: { required: 2, eligible: (p) => ["bob", "carol"].includes(p), forbidRequester: true },
          },
          { pattern: "notify" },
        ]),
      ],
    });
  const handle = createAguiHandler({
    agent,
    stores: { thread: new MemoryThreadStore(), audit },
    trust: { principal: (request) => request.headers.get("x-user") ?? "" },
    logger: quietLogger(),
  });
  const answer = (turn: Turn, who: string) =>
    send(handle, { ...resumeBody("t", turn, { approved: true }), runId: crypto.randomUUID() }, { "x-user": who });
  const ask = () =>
    send(
      handle,
      input({ threadId: "t", messages: [{ id: crypto.randomUUID(), role: "user", content: "wire mallory 20000" }] }),
      { "x-user": "ann" },
    );
  return { ran, audit, ask, answer };
}

const requestedBy = (turn: Turn) =>
  (
    turn.events.findLast((e) => e.type === "RUN_FINISHED") as unknown as {
      outcome?: { interrupts?: { metadata?: { kaboo?: { approvals?: { requestedBy: string | null } } } }[] };
    }
  )?.outcome?.interrupts?.[0]?.metadata?.kaboo?.approvals?.requestedBy;

describe("the audit trail names who asked", () => {
  test("four eyes: round 1's request is ann's, though bob's approval drove the run that asked it", async () => {
    const s = setup();
    const asked = await s.ask();
    const bob = await s.answer(asked, "bob");
    expect(bob.outcome).toBe("interrupt");
    expect(requestedBy(bob)).toBe("ann");
    const entries = await s.audit.entries("t");
    expect(await verifyAuditTrail(entries)).toMatchObject({ ok: true });
    const requests = entries.filter((e) => e.kind === "request");
    expect(requests.map((e) => [e.tool, e.principal, e.drivenBy ?? null])).toEqual([
      ["transfer", "ann", null],
      ["transfer", "ann", "bob"],
    ]);
  });

  test("an ordinary question asked in a run carol drove is ann's request too", async () => {
    const s = setup();
    const bob = await s.answer(await s.ask(), "bob");
    const carol = await s.answer(bob, "carol");
    expect(s.ran).toEqual(["transfer"]);
    expect(carol.outcome).toBe("interrupt");
    const notify = (await s.audit.entries("t")).filter((e) => e.kind === "request" && e.tool === "notify");
    expect(notify.map((e) => (e.kind === "request" ? [e.principal, e.drivenBy ?? null] : []))).toEqual([
      ["ann", "carol"],
    ]);
    expect(await verifyAuditTrail(await s.audit.entries("t"))).toMatchObject({ ok: true });
  });
});
