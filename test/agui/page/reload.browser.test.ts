// A page reloaded in the middle of a run, in real Chromium (IndexedDB, Web Locks, BroadcastChannel):
// the new KabooAgent continues the run from its last checkpoint; two tabs never both drive it.
import fc from "fast-check";
import { describe, expect, inject, test } from "vitest";
import { expectSameRun, playScenario, ReloadWorld, type ScenarioLog } from "./reload-world.js";

// The Chromium share of the reload property (the Node test runs 200); KABOO_PROPERTY_RUNS raises it.
const RUNS = Math.max(40, Math.round((inject("propertyRuns") || 0) / 5));
// Wall-clock limits for a loaded machine (the browser project keeps vitest's 5 s default). Nothing
// here waits on a timer: a held step, a tab watching, are promises the test awaits.
const TEST_TIMEOUT_MS = 60_000;
const PROPERTY_TIMEOUT_MS = Math.max(180_000, RUNS * 3_000);

/** A promise and the function that settles it: a signal a test awaits instead of a sleep or a poll. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire = () => {};
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

async function reference(): Promise<{ log: ScenarioLog; world: ReloadWorld }> {
  const world = new ReloadWorld({ locks: navigator.locks });
  return { log: await playScenario(world), world };
}

/** The operation numbers of a scenario whose label matches. */
function opsOf(world: ReloadWorld, pattern: RegExp): number[] {
  return world.trace.flatMap((label, i) => (pattern.test(label) ? [i + 1] : []));
}

describe("a reload in the middle of a run (Chromium)", () => {
  test(
    "mid-stream: the cut answer is asked of the model again and the transcript is the uninterrupted one",
    async () => {
      const base = await reference();
      const deltas = opsOf(base.world, /^model:contentBlockDelta$/);
      const at = deltas.at(-2) ?? 0;
      const world = new ReloadWorld({ locks: navigator.locks, killAt: [at] });
      const log = await playScenario(world);
      expectSameRun(world, log, base.log, `killed mid-stream at op ${at}`);
      expect(log.pages).toBe(2);
      expect(log.outcomeQuestions).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "mid-call: the claimed call is asked about once, in plain words, and never approved again first",
    async () => {
      const base = await reference();
      const [at] = opsOf(base.world, /^tool:transfer:5$/);
      const world = new ReloadWorld({ locks: navigator.locks, killAt: [at ?? 0] });
      let question = "";
      const log = await playScenario(world, {
        onInterrupt: (i) => {
          if (i.reason === "outcome_unknown") question = i.message ?? "";
        },
      });
      expectSameRun(world, log, base.log, `killed mid-call at op ${at}`);
      expect(log.outcomeQuestions).toBe(1);
      expect(log.approvals).toBe(1);
      expect(question).toMatch(/may have run/);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    `property: one or two reloads at random steps (${RUNS} runs)`,
    async () => {
      const base = await reference();
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: base.world.ops + 10 }), { minLength: 1, maxLength: 2 }),
          async (killAt) => {
            const world = new ReloadWorld({ locks: navigator.locks, killAt });
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

describe("two tabs on one thread (Chromium)", () => {
  test(
    "one drives, the other watches its events live and starts no run of its own; if the driver dies, the watcher takes over",
    async () => {
      const release = signal();
      const reached = signal();
      const base = await reference();
      // Tab A is held just before its last answer starts streaming while tab B connects.
      const mid = opsOf(base.world, /^model:messageStart$/).at(-1);
      let held = false;
      const world = new ReloadWorld({
        locks: navigator.locks,
        onOp: (op) => {
          if (op !== mid || held) return;
          held = true;
          reached.fire();
          return release.promise;
        },
      });
      const a = world.openPage();
      const seenByB: string[] = [];
      const driving = playScenario(world, { page: a });
      await reached.promise;
      const b = world.openPage();
      const shown = signal();
      b.agent.subscribe({
        onEvent: ({ event }) => {
          seenByB.push(event.type);
          if (event.type === "MESSAGES_SNAPSHOT") shown.fire();
        },
      });
      const watching = b.agent.connectAgent();
      // B sees A's checkpoint now (it listens to A's channel from before), and A's events as they come;
      // it never asks the model itself.
      await shown.promise;
      release.fire();
      await watching;
      await driving;
      expect(seenByB).toContain("TEXT_MESSAGE_CONTENT");
      expect(world.modelCalls.get(b) ?? 0).toBe(0);
      expect(JSON.stringify(b.agent.messages.at(-1))).toContain("Sent 5 and then 3 to alice");
      expect(world.bank.map((t) => t.amount)).toEqual([5, 3]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a tab that is refused while another drives gets RUN_IN_PROGRESS; when the driver dies mid-answer, the watcher finishes the run",
    async () => {
      const release = signal();
      const reached = signal();
      const base = await reference();
      const [mid] = opsOf(base.world, /^model:contentBlockDelta$/).slice(-3);
      const world = new ReloadWorld({
        locks: navigator.locks,
        onOp: (op) => {
          if (op !== mid) return;
          reached.fire();
          return release.promise;
        },
      });
      const a = world.openPage();
      const driving = playScenario(world, { page: a, reopen: false });
      await reached.promise;
      const b = world.openPage();
      const refusals: string[] = [];
      const subscription = b.agent.subscribe({
        onRunErrorEvent: ({ event }) => void refusals.push(`${event.code}: ${event.message}`),
      });
      await b.agent.runAgent().catch(() => undefined);
      subscription.unsubscribe();
      expect(refusals).toEqual([expect.stringMatching(/^RUN_IN_PROGRESS: Another tab is running this thread/)]);
      const shown = signal();
      b.agent.subscribe({ onMessagesSnapshotEvent: () => void shown.fire() });
      const watching = b.agent.connectAgent();
      // B watches (it has asked for the thread's lock) before tab A closes in the middle of its
      // answer: B then continues from A's last checkpoint.
      await shown.promise;
      a.kill();
      release.fire();
      await watching;
      await driving;
      expect(world.modelCalls.get(b)).toBe(1);
      const stored = await world.stored();
      expect(stored?.run?.status).toBe("finished");
      expect(JSON.stringify(b.agent.messages.at(-1))).toContain("Sent 5 and then 3 to alice");
      expect(world.bank.map((t) => t.amount)).toEqual([5, 3]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "the same approval answered in two tabs, at once and then again: one tab drives, each transfer runs once",
    async () => {
      const world = new ReloadWorld({ locks: navigator.locks });
      const a = world.openPage();
      await a.agent.connectAgent();
      a.agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "pay alice 5 now and 3 after" });
      await a.agent.runAgent();
      const b = world.openPage();
      await b.agent.connectAgent();
      expect(b.agent.pendingInterrupts.map((i) => i.id)).toEqual(a.agent.pendingInterrupts.map((i) => i.id));
      const errors: string[] = [];
      const refused = new Set<typeof a>();
      for (const p of [a, b]) {
        p.agent.subscribe({
          onRunErrorEvent: ({ event }) => {
            errors.push(event.code ?? "");
            refused.add(p);
          },
        });
      }
      const approve = (p: typeof a) =>
        p.agent.pendingInterrupts.map((i) => ({
          interruptId: i.id,
          status: "resolved" as const,
          payload: { approved: true, scope: "thread" },
        }));
      const [fromA, fromB] = [approve(a), approve(b)];
      await Promise.all([a.agent.runAgent({ resume: fromA }), b.agent.runAgent({ resume: fromB })]);
      expect(errors).toEqual(["RUN_IN_PROGRESS"]);
      expect(world.bank.map((t) => t.amount)).toEqual([5, 3]);
      // The refused tab sends its answer again once the other is done: its view is stale, nothing runs.
      const stale = refused.has(a) ? a : b;
      await stale.agent.runAgent({ resume: stale === a ? fromA : fromB });
      expect(errors).toEqual(["RUN_IN_PROGRESS", "STALE_THREAD"]);
      expect(world.bank.map((t) => t.amount)).toEqual([5, 3]);
      await stale.agent.connectAgent();
      expect(JSON.stringify(stale.agent.messages.at(-1))).toContain("Sent 5 and then 3 to alice");
    },
    TEST_TIMEOUT_MS,
  );
});
