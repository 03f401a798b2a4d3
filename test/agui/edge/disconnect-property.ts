/**
 * The disconnect property, for a world in any runtime (Node-side: it asserts with vitest and draws
 * with fast-check, so the runtime entries, which bundle disconnect-scenario.ts, never import it):
 * a drop after any event of any turn, with or without the same resume sent again, leaves the same
 * transcript as the baseline, each approved call run once, nothing cancelled, no question twice.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { shape, type Cut, type Seen } from "./disconnect-scenario.js";

/** One conversation of the world, cut where told: what the client saw, the thread's record, the payees sent. */
export type World = (cut?: Cut) => Promise<Seen & { record: { messages: unknown[] }; sent: string[] }>;

/** Checks the baseline (alice sent, two questions, then success), then the property over `runs` cuts. */
export async function expectDisconnectProperty(world: World, runs: number): Promise<void> {
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
    { numRuns: runs },
  );
}
