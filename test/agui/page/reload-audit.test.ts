// A page reloaded at any step of a run, with an audit trail (Node: fake-indexeddb, an in-memory lock
// manager, a MemoryAuditLog every page writes to; each append is a step a page can die at). A run continued
// after a reload reads the answers it was given again: the trail records each answer once, and never loses one.
import "fake-indexeddb/auto";
import { describe, expect, test } from "vitest";
import type { AuditEntry } from "../../../src/agent/audit/audit.js";
import { verifyAuditTrail } from "../../../src/agent/audit/audit-verify.js";
import { MemoryAuditLog } from "../../../src/index.js";
import { expectSameRun, MemoryLocks, playScenario, ReloadWorld, type ScenarioLog } from "./reload-world.js";

const memoryLocks = () => new MemoryLocks() as unknown as LockManager;

/** Plays the scenario, noting the id of every question the person answered. */
async function play(world: ReloadWorld): Promise<{ log: ScenarioLog; answered: Map<string, string> }> {
  const answered = new Map<string, string>();
  const log = await playScenario(world, { onInterrupt: (i) => answered.set(i.id, i.reason ?? "") });
  return { log, answered };
}

/** The trail's decisions by interrupt id. */
function decisionsBy(entries: readonly AuditEntry[]): Map<string, AuditEntry[]> {
  const by = new Map<string, AuditEntry[]>();
  for (const e of entries) if (e.kind === "decision") by.set(e.interruptId, [...(by.get(e.interruptId) ?? []), e]);
  return by;
}

describe("the audit trail of a page reloaded at any step (Node, fake-indexeddb)", () => {
  test("every single step: each answer recorded once, none lost, the trail verifies", async () => {
    const reference = new ReloadWorld({ locks: memoryLocks(), audit: new MemoryAuditLog() });
    const base = await play(reference);
    const ops = reference.ops;
    expect(ops).toBeGreaterThan(20);
    let outcomeQuestions = 0;
    for (let at = 1; at <= ops; at++) {
      const audit = new MemoryAuditLog();
      const world = new ReloadWorld({ locks: memoryLocks(), killAt: [at], audit });
      const { log, answered } = await play(world);
      expectSameRun(world, log, base.log, `killed at op ${at} (${reference.trace[at - 1]})`);
      outcomeQuestions += log.outcomeQuestions;
      const entries = await audit.entries(world.threadId);
      expect(await verifyAuditTrail(entries), `killed at op ${at}`).toMatchObject({ ok: true });
      const decisions = decisionsBy(entries);
      const approvals = [...answered].filter(([, reason]) => reason !== "outcome_unknown").map(([id]) => id);
      // Every approval answered has its answer in the trail, once; nothing else is recorded as an answer.
      expect([...decisions.keys()].sort(), `killed at op ${at}`).toEqual(approvals.sort());
      // An outcome question's answer is recorded with the call's execution entry, once per question.
      const outcomeAnswers = entries.filter((e) => e.kind === "execution" && e.answer !== null);
      expect(outcomeAnswers, `killed at op ${at}: ${JSON.stringify(entries)}`).toHaveLength(log.outcomeQuestions);
      for (const [id, list] of decisions)
        expect(
          list.map((e) => (e.kind === "decision" ? e.decision : e.kind)),
          `killed at op ${at} (${reference.trace[at - 1]}): the answer to ${answered.get(id) || "the approval"}`,
        ).toEqual(["approved"]);
    }
    // The sweep reaches the calls themselves: the outcome question's answer is recorded too.
    expect(outcomeQuestions).toBeGreaterThan(0);
  }, 120_000);
});
