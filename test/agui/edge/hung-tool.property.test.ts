/**
 * Property: a Stop at a random point of an approved transfer, whose callback at random ignores its signal
 * (and its result comes late, or never), honours it, or finishes on its own. Every run ends within the
 * grace, the thread is free after it, each outcome question is answered at random, and the transfer runs
 * once at most, twice only when the person chose "run it again" for a call whose result never came.
 * KABOO_PROPERTY_RUNS raises the count (default 40).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import { createAguiHandler } from "../../../src/agui/index.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, tool } from "../../../src/index.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { input } from "../helpers.js";
import { type Turn, post, quietLogger, resumeBody, send } from "./fixtures.js";

const RUNS = Number(process.env.KABOO_PROPERTY_RUNS) || 40;
const GRACE_MS = 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Behaviour = "ignores" | "honours" | "finishes";
interface Case {
  behaviour: Behaviour;
  stopAfterMs: number;
  /** When the ignored call's result comes after all (ms after the Stop), or never. */
  lateAfterMs: number | null;
  answer: "run_again" | "treat_as_done" | "cancel";
}

async function world(c: Case) {
  const invocations: string[] = [];
  let late: ((v: string) => void) | undefined;
  const transfer = tool({
    name: "transfer",
    description: "Send money.",
    inputSchema: z.object({ to: z.string() }),
    callback: ({ to }, { signal }) => {
      invocations.push(to);
      // Only the first call misbehaves: a call run again answers at once.
      if (invocations.length > 1) return "sent again";
      if (c.behaviour === "finishes") return sleep(5).then(() => "sent");
      if (c.behaviour === "honours")
        return new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      return new Promise<string>((resolve) => {
        late = resolve;
      });
    },
  });
  const store = new MemoryThreadStore();
  const handle = createAguiHandler({
    agent: () =>
      new Agent({
        model: new ScriptedModel({
          script: ({ lastToolResults }) =>
            lastToolResults.length ? { text: "Done." } : { toolCalls: [{ name: "transfer", input: { to: "bob" } }] },
        }),
        tools: [transfer],
        hooks: [new InterruptHook(["transfer"])],
        toolGraceMs: GRACE_MS,
      }),
    stores: { thread: store },
    timing: { runLeaseMs: 200 },
    logger: quietLogger(),
  });
  return { invocations, handle, late: () => late };
}

const question = (turn: Turn) => turn.interrupts.find((i) => /outcome_unknown/.test(i.id));

async function scenario(c: Case) {
  const w = await world(c);
  const asked = await send(w.handle, input({ threadId: "t", messages: [{ id: "u1", role: "user", content: "pay" }] }));
  const approving = await w.handle(post(resumeBody("t", asked, { approved: true })));
  await sleep(c.stopAfterMs);
  const stop = await w.handle(post({ kaboo_cancel: { threadId: "t" } }));
  const stoppedAt = performance.now();
  const text = await approving.text();
  const tookMs = performance.now() - stoppedAt;
  let turn = await send(async () => new Response(text), {});
  let lateCame = false;
  if (c.lateAfterMs !== null) {
    await sleep(c.lateAfterMs);
    const resolve = w.late();
    if (resolve) {
      resolve("sent late");
      lateCame = true;
      await sleep(5);
    }
  }
  const errors: string[] = [];
  for (let i = 0; i < 3 && question(turn); i++) {
    const body = { ...resumeBody("t", turn, { action: c.answer }, question(turn)?.id), runId: crypto.randomUUID() };
    turn = await send(w.handle, body);
    if (turn.error) errors.push(turn.error.code);
  }
  const next = await send(
    w.handle,
    input({ threadId: "t", messages: [...turn.messages, { id: "u2", role: "user", content: "hi" }] }),
  );
  if (next.error) errors.push(next.error.code);
  return { invocations: w.invocations, stop: stop.status, tookMs, errors, lateCame, asked: question(turn) };
}

describe("property: a Stop at any point of a hung, honouring or finishing transfer", () => {
  test(`the run ends within the grace, the thread is free, the transfer runs at most once unless run again (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          behaviour: fc.constantFrom<Behaviour>("ignores", "honours", "finishes"),
          stopAfterMs: fc.integer({ min: 0, max: 25 }),
          lateAfterMs: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
          answer: fc.constantFrom("run_again" as const, "treat_as_done" as const, "cancel" as const),
        }),
        async (c) => {
          const r = await scenario(c);
          // The Stop came while the run held the thread (202), or just after it ended (409): never stuck.
          expect([202, 409]).toContain(r.stop);
          expect(r.tookMs).toBeLessThan(GRACE_MS + 1_000);
          expect(r.errors).toEqual([]);
          expect(r.asked).toBeUndefined();
          const twiceAllowed = c.behaviour === "ignores" && c.answer === "run_again" && !r.lateCame;
          expect(r.invocations.length).toBeLessThanOrEqual(twiceAllowed ? 2 : 1);
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
