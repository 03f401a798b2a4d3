/**
 * Property: the disconnect scenario of ./disconnect-scenario.ts (three model turns, two gated
 * transfers, the first approved) interrupted by a client disconnect after a random event of a
 * random request, the client recovering by reattaching or by sending the same resume again. Every
 * interrupted run ends with the uninterrupted run's transcript (ids and times aside), the approved
 * transfer executed exactly once, the denied one never, no call reported as cancelled, and each
 * approval asked once. KABOO_PROPERTY_RUNS raises the count (default 200). The same property runs in
 * workerd and Deno in test/runtimes/disconnect.property.test.ts.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { conversation, scenarioAgent, shape, type Cut } from "./disconnect-scenario.js";
import { quietLogger } from "./fixtures.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 200;

async function world(cut?: Cut) {
  const sent: string[] = [];
  const store = new MemoryThreadStore();
  const handle = createAguiHandler({
    stores: { thread: store },
    agent: () => scenarioAgent((to) => void sent.push(to)),
    logger: quietLogger(),
  });
  const seen = await conversation(handle, "t", cut);
  return { ...seen, sent, record: await store.load("t") };
}

describe("property: a client disconnect at any point of a run at the edge", () => {
  test(`the same transcript, each approved call once, nothing reported cancelled, no question twice (${RUNS} runs)`, async () => {
    const baseline = await world();
    expect(baseline.sent).toEqual(["alice"]);
    expect(baseline.outcomes).toEqual(["interrupt", "interrupt", "success"]);
    expect(baseline.asked).toHaveLength(2);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.nat(), fc.boolean(), async (at, raw, resend) => {
        // A drop after any event but the last (after the last there is nothing to miss).
        const after = 1 + (raw % ((baseline.lengths[at] as number) - 1));
        const run = await world({ at, after, resend });
        expect(run.sent).toEqual(["alice"]);
        expect(shape(run.record.messages)).toEqual(shape(baseline.record.messages));
        expect(JSON.stringify(run.record.messages)).not.toContain("cancelled");
        expect(run.outcomes).toEqual(baseline.outcomes);
        expect(new Set(run.asked).size).toBe(run.asked.length);
        expect(run.asked).toHaveLength(2);
      }),
      { numRuns: RUNS },
    );
    // About 10 s alone; several times that on a loaded two-core machine.
  }, 180_000);
});
