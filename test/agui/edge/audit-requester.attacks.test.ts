/**
 * Who asked, in the audit trail: a `request` entry names the person whose conversation asked the question
 * (the thread's owner), not the approver whose answer drove the run that showed it; who drove that run is
 * its `drivenBy`. Four eyes (`required: 2`, `forbidRequester`): ann asks, bob approves round 0, and round
 * 1's request is still ann's; after carol's approval the run she drove asks an ordinary question, also ann's.
 */
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { MemoryAuditLog, ScriptedModel, tool, verifyAuditTrail } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import type { Turn } from "./fixtures.js";
import { fourEyesEdge } from "./four-eyes.js";

function setup() {
  const ran: string[] = [];
  const audit = new MemoryAuditLog();
  const model = () =>
    new ScriptedModel({
      script: ({ lastToolResults, lastUserText, messages }) => {
        const notified = messages.some((m) => m.content.some((b) => b.type === "toolUse" && b.name === "notify"));
        if (lastToolResults.length && !notified) return { toolCalls: [{ name: "notify", input: { to: "ann" } }] };
        if (lastToolResults.length) return { text: "done" };
        const pay = /wire (\w+) (\d+)/.exec(lastUserText);
        return pay
          ? { toolCalls: [{ name: "transfer", input: { to: pay[1], amount: Number(pay[2]) } }] }
          : { text: "hi" };
      },
    });
  const notify = tool({
    name: "notify",
    description: "Tell someone.",
    inputSchema: z.object({ to: z.string() }),
    callback: () => (ran.push("notify"), "told"),
  });
  const approvals = { required: 2, eligible: (p: string) => ["bob", "carol"].includes(p), forbidRequester: true };
  const { ask, answer } = fourEyesEdge({
    handler: { stores: { thread: new MemoryThreadStore(), audit } },
    bank: () => ({
      model: model(),
      onSent: () => void ran.push("transfer"),
      extraTools: [notify],
      gate: false,
      hooks: [new InterruptHook([{ pattern: "transfer", approvals }, { pattern: "notify" }])],
    }),
  });
  return { ran, audit, ask: () => ask("t"), answer: (turn: Turn, who: string) => answer("t", turn, who) };
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
