// A page reloaded at any step of a run continues it from its last checkpoint (Node: fake-indexeddb,
// an in-memory lock manager). The run shape: three model turns, two gated transfers, one approval.
import "fake-indexeddb/auto";
import fc from "fast-check";
import { describe, expect, inject, test } from "vitest";
import { expectSameRun, MemoryLocks, nthOp, playScenario, ReloadWorld, type ScenarioLog } from "./reload-world.js";

const RUNS = inject("propertyRuns") || 200;
// Wall-clock limits for a loaded machine. The harness has no timers, leases or sleeps (a death is
// an operation number, locks are let go at once), so the time is CPU: ≈20 ms a scenario, which
// `npm test` on two shared cores stretches many times (one run went past the project's 30 s).
const SWEEP_TIMEOUT_MS = 120_000;
const PROPERTY_TIMEOUT_MS = Math.max(240_000, RUNS * 1_200);
const memoryLocks = () => new MemoryLocks() as unknown as LockManager;

async function reference(): Promise<{ log: ScenarioLog; ops: number }> {
  const world = new ReloadWorld({ locks: memoryLocks() });
  const log = await playScenario(world);
  return { log, ops: world.ops };
}

describe("a page reloaded at any step of a run (Node, fake-indexeddb)", () => {
  test(
    "every single step: the same transcript, each transfer once, never cancelled, no approval asked twice",
    async () => {
      const base = await reference();
      expect(base.log.approvals).toBe(1);
      let outcomeQuestions = 0;
      for (let at = 1; at <= base.ops; at++) {
        const world = new ReloadWorld({ locks: memoryLocks(), killAt: [at] });
        const log = await playScenario(world);
        expectSameRun(world, log, base.log, `killed at op ${at}`);
        outcomeQuestions += log.outcomeQuestions;
      }
      // The sweep reaches the calls themselves: a claim without a result is asked about (once per reload).
      expect(outcomeQuestions).toBeGreaterThan(0);
    },
    SWEEP_TIMEOUT_MS,
  );

  // The person answers the outcome question "run it again", and the page dies again after the money
  // moved, before its result is recorded: that answer was about the first lost claim, not this one. It
  // was replayed from the checkpoint and the transfer ran a third time (fast-check found both).
  test.each([
    ["the first transfer", 5, 1],
    ["the second transfer", 3, 2],
  ])(
    "a reload before %s moves money, then one after its run again moved it: asked again, run once",
    async (_, amount, settles) => {
      const base = await reference();
      const beforeMoney = nthOp(new RegExp(`^tool:transfer:${amount}$`), 1);
      const beforeRecord = nthOp(/^ledger:settle$/, settles);
      const world = new ReloadWorld({
        locks: memoryLocks(),
        killWhen: (op, label) => beforeMoney(op, label) || beforeRecord(op, label),
      });
      const log = await playScenario(world);
      expect(log.pages).toBe(3);
      expect(log.outcomeQuestions).toBe(2);
      expectSameRun(world, log, base.log, `reloads before and after a run again of the ${amount}`);
    },
  );

  test(
    `property: one or two reloads at random steps (${RUNS} runs)`,
    async () => {
      const base = await reference();
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: base.ops + 20 }), { minLength: 1, maxLength: 2 }),
          async (killAt) => {
            const world = new ReloadWorld({ locks: memoryLocks(), killAt });
            const log = await playScenario(world);
            expectSameRun(world, log, base.log, `killed at ops ${killAt.join(", ")}`);
          },
        ),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
