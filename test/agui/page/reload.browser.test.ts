// A page reloaded in the middle of a run, in real Chromium (IndexedDB, Web Locks, BroadcastChannel):
// the new KabooAgent continues the run from its last checkpoint; two tabs never both drive it.
import fc from "fast-check";
import { describe, expect, inject, test } from "vitest";
import { countOps, expectSameRun, nthOp, playScenario, ReloadWorld, type ScenarioLog } from "./reload-world.js";

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

/**
 * A world whose run is held at the operation labelled like `label`, `fromEnd` before the last such
 * operation of the reference run, until `release` fires; `reached` fires when it gets there.
 */
async function heldAt(label: RegExp, fromEnd: number) {
  const release = signal();
  const reached = signal();
  const base = await reference();
  const at = nthOp(label, countOps(base.world, label) - fromEnd);
  const world = new ReloadWorld({
    locks: navigator.locks,
    onOp: (op, l) => {
      if (!at(op, l)) return;
      reached.fire();
      return release.promise;
    },
  });
  return { base, world, reached, release };
}

describe("a reload in the middle of a run (Chromium)", () => {
  test(
    "mid-stream: the cut answer is asked of the model again and the transcript is the uninterrupted one",
    async () => {
      const base = await reference();
      // The last answer's last delta but one: a place by label, as operation numbers move in Chromium.
      const delta = /^model:contentBlockDelta$/;
      const nth = countOps(base.world, delta) - 1;
      const world = new ReloadWorld({ locks: navigator.locks, killWhen: nthOp(delta, nth) });
      const log = await playScenario(world);
      expectSameRun(world, log, base.log, `killed mid-stream at delta ${nth}`);
      expect(log.pages).toBe(2);
      expect(log.outcomeQuestions).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "mid-call: the claimed call is asked about once, in plain words, and never approved again first",
    async () => {
      const base = await reference();
      const world = new ReloadWorld({ locks: navigator.locks, killWhen: nthOp(/^tool:transfer:5$/, 1) });
      let question = "";
      const log = await playScenario(world, {
        onInterrupt: (i) => {
          if (i.reason === "outcome_unknown") question = i.message ?? "";
        },
      });
      expectSameRun(world, log, base.log, "killed mid-call");
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
      // Tab A is held just before its last answer starts streaming while tab B connects.
      const { world, reached, release } = await heldAt(/^model:messageStart$/, 0);
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
      const { world, reached, release } = await heldAt(/^model:contentBlockDelta$/, 2);
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
      expect(refusals).toEqual([
        expect.stringMatching(/^RUN_IN_PROGRESS: This thread's run is still going \(in another tab/),
      ]);
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
    "a tab that joins in the middle of a streamed message shows the message so far, then the rest live",
    async () => {
      // Held in the middle of the last answer: a few of its deltas are out, the rest not yet.
      const delta = /^model:contentBlockDelta$/;
      const { base, world, reached, release } = await heldAt(delta, 3);
      // What A tells the other tabs of its last answer, heard as by a tab open all along.
      const trace = base.world.trace;
      const lastDeltas = trace.slice(trace.lastIndexOf("model:messageStart")).filter((l) => delta.test(l)).length;
      const told = signal();
      const spy = new BroadcastChannel(`kaboo-run:${world.threadId}`);
      const answers = base.log.messages.filter((m) => m.role === "assistant" && m.content).length;
      let [answerId, starts, contents] = ["", 0, 0];
      spy.onmessage = ({ data }) => {
        const event = (data as { event?: { type: string; messageId?: string } }).event;
        if (event?.type === "TEXT_MESSAGE_START") [answerId, starts, contents] = [event.messageId ?? "", starts + 1, 0];
        if (event?.type === "TEXT_MESSAGE_CONTENT" && event.messageId === answerId && starts === answers) contents++;
        // The model's deltas reach the channel one behind it: the one before the held one is still on its way.
        if (contents === lastDeltas - 4) told.fire();
      };
      const a = world.openPage();
      const driving = playScenario(world, { page: a });
      await reached.promise;
      // B opens once A's START and first deltas went out: it cannot hear them live.
      await told.promise;
      spy.close();
      const checkpoint = new Set((await world.stored())?.messages.map((m) => m.id));
      const final = String(base.log.messages.at(-1)?.content ?? "");

      const b = world.openPage();
      const shown = signal();
      b.agent.subscribe({
        onMessagesChanged: ({ messages }) => {
          const last = messages.at(-1);
          if (last?.role === "assistant" && !checkpoint.has(last.id) && last.content) shown.fire();
        },
      });
      const watching = b.agent.connectAgent();
      // Without an answer to its join, B would show nothing of it until the run's closing snapshot.
      const late = new Promise<"late">((r) => setTimeout(() => r("late"), 15_000));
      expect(await Promise.race([shown.promise, late])).toBeUndefined();
      const partial = b.agent.messages.at(-1)!;
      const text = String(partial.content);
      // The message so far: the start of the answer, and only the start (A is held in its middle).
      expect(final.startsWith(text) && text.length < final.length).toBe(true);
      expect(b.agent.messages.filter((m) => m.id === partial.id)).toHaveLength(1);
      release.fire();
      await watching;
      await driving;
      expect(world.modelCalls.get(b) ?? 0).toBe(0);
      // The rest came live, onto the same message: one answer, the whole text.
      expect(b.agent.messages.map((m) => [m.id, m.content])).toEqual(a.agent.messages.map((m) => [m.id, m.content]));
      expect(b.agent.messages.at(-1)).toMatchObject({ id: partial.id, content: final });
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
