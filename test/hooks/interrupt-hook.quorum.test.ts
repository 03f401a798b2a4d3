// Four-eyes approvals: a rule that needs two of three approvers runs its call exactly once, after
// the second approval and never after one; the requester cannot approve their own request; a
// denial ends it; the whole request expires; partial approvals survive a fresh agent (a restart).
import { describe, expect, test } from "vitest";
import {
  Agent,
  InterruptState,
  MemoryAuditLog,
  MemoryExecutionLedger,
  ScriptedModel,
  type InterruptResponse,
  type JsonValue,
} from "../../src/index.js";
import { InterruptHook, type GateRule } from "../../src/hooks/interrupt-hook.js";
import { auditKinds, expectAuditMatchesRuns } from "../agent/audit-helpers.js";
import { transferTool } from "../agent/helpers.js";

const APPROVERS = ["bob", "carol", "dan"];
const rule = (over: Partial<NonNullable<GateRule["approvals"]>> = {}): GateRule => ({
  pattern: "transfer",
  subject: (_, i) => `to:${(i as { to: string }).to}`,
  approvals: { required: 2, eligible: (p) => APPROVERS.includes(p), forbidRequester: true, ...over },
});

/** A thread whose paused state goes through JSON between runs: every run is a fresh agent (a restart). */
function thread(gate: GateRule = rule(), options: { ttlSeconds?: number; now?: () => number } = {}) {
  const { tool, sent } = transferTool();
  const keys: string[] = [];
  const ledger = new MemoryExecutionLedger();
  const audit = new MemoryAuditLog();
  let saved: { messages: Agent["messages"]; interrupts: unknown } | undefined;
  const make = () => {
    const agent = new Agent({
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length
            ? { text: "ok" }
            : { toolCalls: [{ name: "transfer", input: { to: "mallory" }, id: "t1" }] },
      }),
      tools: [tool],
      hooks: [new InterruptHook([gate], options)],
      ledger,
      audit,
    });
    if (saved) {
      agent.messages = saved.messages;
      agent.interruptState = InterruptState.fromJSON(saved.interrupts);
    }
    return agent;
  };
  const save = (agent: Agent) => {
    saved = JSON.parse(JSON.stringify({ messages: agent.messages, interrupts: agent.interruptState.toJSON() }));
  };
  const as = (principal: string) => ({ invocationState: { threadId: "th", kabooPrincipal: principal } });
  return {
    sent,
    keys,
    audit,
    async ask(principal = "ann") {
      const agent = make();
      const r = await agent.invoke("pay mallory", as(principal));
      save(agent);
      return r;
    },
    /** Answers the open question as `principal`; resolves to the run's result and the open interrupt, if any. */
    async answer(principal: string, response: JsonValue, agent = make()) {
      const open = agent.interruptState.pendingIds()[0] ?? "";
      const answers: InterruptResponse[] = [{ interruptResponse: { interruptId: open, response } }];
      const r = await agent.invoke(answers, as(principal));
      save(agent);
      return { r, open, next: r.interrupts[0] };
    },
    make,
    save,
  };
}

const approve = { approved: true };

describe("a two-of-three rule", () => {
  test("runs the call once after the second approval, never after one; the question shows who approved", async () => {
    const t = thread();
    const asked = await t.ask("ann");
    expect(asked.stopReason).toBe("interrupt");
    expect(asked.interrupts[0]?.reason).toMatchObject({
      scopes: ["once"],
      approvals: { required: 2, approvedBy: [], requestedBy: "ann" },
    });

    const first = await t.answer("bob", approve);
    expect(t.sent).toEqual([]);
    expect(first.r.stopReason).toBe("interrupt");
    expect(first.next?.id).not.toBe(first.open);
    expect(first.next?.reason).toMatchObject({ approvals: { approvedBy: [{ principal: "bob" }], requestedBy: "ann" } });

    const second = await t.answer("carol", approve);
    expect(second.r.stopReason).toBe("endTurn");
    expect(t.sent).toEqual([{ to: "mallory" }]);

    const entries = await expectAuditMatchesRuns(t.audit, "th", [await key()]);
    expect(auditKinds(entries)).toEqual([
      "request",
      "decision:approved",
      "request",
      "decision:approved",
      "execution:claimed",
    ]);
    expect(entries.filter((e) => e.kind === "decision").map((e) => e.kind === "decision" && e.principal)).toEqual([
      "bob",
      "carol",
    ]);
    expect(entries[0]).toMatchObject({ kind: "request", required: 2, principal: "ann" });
  });

  test("the same approver twice counts once: the call does not run", async () => {
    const t = thread();
    await t.ask("ann");
    await t.answer("bob", approve);
    const again = await t.answer("bob", approve);
    expect(again.r.stopReason).toBe("interrupt");
    expect(again.next?.reason).toMatchObject({ approvals: { approvedBy: [{ principal: "bob" }] } });
    expect(t.sent).toEqual([]);
  });

  test("the requester cannot approve their own request; an ineligible person cannot approve", async () => {
    const t = thread();
    await t.ask("ann");
    for (const who of ["ann", "eve"]) {
      const r = await t.answer(who, approve);
      expect(r.r.stopReason).toBe("interrupt");
      expect(r.next?.reason).toMatchObject({ approvals: { approvedBy: [] } });
    }
    expect(t.sent).toEqual([]);
    const notes = (await t.audit.entries("th")).flatMap((e) => (e.kind === "decision" ? [e.note] : []));
    expect(notes).toEqual(["not counted: ann asked for this call", "not counted: eve may not approve this call"]);
    // Two eligible approvers still get it through, once.
    await t.answer("bob", approve);
    await t.answer("dan", approve);
    expect(t.sent).toEqual([{ to: "mallory" }]);
  });

  test("a denial by an eligible approver ends it, even after an approval", async () => {
    const t = thread();
    await t.ask("ann");
    await t.answer("bob", approve);
    const denied = await t.answer("carol", { approved: false });
    expect(denied.r.stopReason).toBe("endTurn");
    expect(t.sent).toEqual([]);
    expect(auditKinds(await t.audit.entries("th")).at(-1)).toBe("decision:denied");
  });

  test("an approval that edits the call is not counted", async () => {
    const t = thread();
    await t.ask("ann");
    await t.answer("bob", { approved: true, editedArgs: { to: "eve" } });
    expect(t.sent).toEqual([]);
    const second = await t.answer("carol", approve);
    expect(second.r.stopReason).toBe("interrupt");
    expect(t.sent).toEqual([]);
  });

  test("expiresAt holds for the whole request: a second approval after the first round's deadline does not run it", async () => {
    let now = 1_000_000;
    const t = thread(rule(), { ttlSeconds: 60, now: () => now });
    const asked = await t.ask("ann");
    const deadline = (asked.interrupts[0]?.reason as { expiresAt?: string } | undefined)?.expiresAt;
    const first = await t.answer("bob", approve);
    expect((first.next?.reason as { expiresAt?: string } | undefined)?.expiresAt).toBe(deadline);
    now += 61_000;
    const late = await t.answer("carol", approve);
    expect(late.r.stopReason).toBe("endTurn");
    expect(t.sent).toEqual([]);
  });

  test("approvals racing from two principals at once (two copies of the paused thread): neither runs the call", async () => {
    const t = thread();
    await t.ask("ann");
    const [a, b] = [t.make(), t.make()];
    const [ra, rb] = await Promise.all([t.answer("bob", approve, a), t.answer("carol", approve, b)]);
    expect([ra.r.stopReason, rb.r.stopReason]).toEqual(["interrupt", "interrupt"]);
    expect(t.sent).toEqual([]);
  });

  test("a rule needs a positive whole number of approvals", () => {
    expect(() => new InterruptHook([rule({ required: 0 })])).toThrow(/positive integer/);
    expect(() => new InterruptHook([rule({ required: 1.5 })])).toThrow(/positive integer/);
  });
});

async function key() {
  const { executionKey } = await import("../../src/index.js");
  return executionKey({ threadId: "th", toolUseId: "t1", input: { to: "mallory" } });
}
