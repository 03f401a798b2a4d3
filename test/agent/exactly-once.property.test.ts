/**
 * Property: exactly once, under everything at once. Random tool batches × a throw at any hook event ×
 * cut model streams × aborts × hanging tools × approvals and denials × retries × replays of older
 * snapshots × JSON round trips into a fresh agent × two invocations of one thread at once, all over
 * one execution ledger. After every step: a gated call ran only when approved; no call ran twice;
 * no toolUse without its toolResult; AfterInvocation once per invocation; the agent runs again. At
 * the end the audit trail verifies and records exactly the calls that ran to an end.
 *
 * Runs: 2,000 by default; EXACTLY_ONCE_RUNS sets another count (the nightly size).
 */
import fc from "fast-check";
import { expect, test } from "vitest";
import * as z from "zod/v4";
import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterToolCallEvent,
  Agent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  InterruptState,
  MemoryAuditLog,
  MemoryExecutionLedger,
  MessageAddedEvent,
  ScriptedModel,
  tool,
  type HookEventClass,
  type JsonValue,
  type Message,
  type ScriptedTurn,
} from "../../src/index.js";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { expectAuditMatchesRuns } from "./audit-helpers.js";
import { expectConsistentTranscript } from "./helpers.js";

const RUNS = Number(
  (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.EXACTLY_ONCE_RUNS ?? 2000,
);

const EVENTS = [
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  AfterModelCallEvent,
  BeforeToolCallEvent,
  AfterToolCallEvent,
  MessageAddedEvent,
  AfterInvocationEvent,
] as const;
const MODES = ["ok", "throw", "hang"] as const;
type Mode = (typeof MODES)[number];

const callArb = fc.record({
  tool: fc.constantFrom("pay", "note", "look"),
  mode: fc.constantFrom(...MODES, "ok", "ok"),
});
const turnArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "text" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "cut" as const }) },
  {
    weight: 5,
    arbitrary: fc.array(callArb, { minLength: 1, maxLength: 3 }).map((calls) => ({ kind: "tools" as const, calls })),
  },
);
const stepArb = fc.record({
  kind: fc.constantFrom("message", "answer", "answer", "answer", "retry", "discard", "replayOld", "roundTrip", "twin"),
  answers: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  fault: fc.option(fc.record({ event: fc.nat(EVENTS.length - 1), nth: fc.nat(2) }), { nil: undefined, freq: 2 }),
  abortAt: fc.option(fc.nat(25), { nil: undefined, freq: 6 }),
});

type Answers = { interruptResponse: { interruptId: string; response: JsonValue } }[];
type Snapshot = { messages: Message[]; interrupts: unknown };

test(`exactly once under faults, retries, replays and concurrency (${RUNS} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(turnArb, { minLength: 1, maxLength: 5 }),
      fc.array(stepArb, { minLength: 1, maxLength: 5 }),
      async (turns, steps) => {
        const ledger = new MemoryExecutionLedger();
        const audit = new MemoryAuditLog();
        // Idempotency keys of the ledgered calls that ran to an end (a hanging call never settles).
        const finished: string[] = [];
        const runs = new Map<string, number>();
        const approved = new Set<string>();
        let seq = 0;
        let turnIndex = 0;
        let controller = new AbortController();
        let fault: { event: number; nth: number } | undefined;
        let seen = 0;
        let befores = 0;
        let afters = 0;

        const mk = (name: string, annotations?: { readOnlyHint: boolean }) =>
          tool({
            name,
            description: name,
            inputSchema: z.object({ mode: z.enum(MODES) }),
            ...(annotations ? { annotations } : {}),
            callback: ({ mode }, ctx) => {
              runs.set(ctx.toolUse.toolUseId, (runs.get(ctx.toolUse.toolUseId) ?? 0) + 1);
              if (name === "pay")
                expect(approved.has(ctx.toolUse.toolUseId), `unapproved pay ${ctx.toolUse.toolUseId}`).toBe(true);
              if (!annotations && (mode as Mode) !== "hang") finished.push(ctx.idempotencyKey);
              if ((mode as Mode) === "throw") throw new Error("tool failed");
              if ((mode as Mode) === "hang") {
                controller.abort();
                return new Promise<string>(() => undefined);
              }
              return "ok";
            },
          });
        const tools = [mk("pay"), mk("note"), mk("look", { readOnlyHint: true })];
        const script = (): ScriptedTurn => {
          const t = turns[turnIndex++];
          if (!t || t.kind === "text") return { text: "done" };
          if (t.kind === "cut") return { text: "partial answer", cutAfterEvents: 2 };
          return { toolCalls: t.calls.map((c) => ({ name: c.tool, input: { mode: c.mode }, id: `c${++seq}` })) };
        };
        const makeAgent = (snapshot?: Snapshot) => {
          const agent = new Agent({
            model: new ScriptedModel({ script }),
            tools,
            hooks: [new InterruptHook(["pay"])],
            ledger,
            audit,
          });
          agent.hooks.addCallback(BeforeInvocationEvent, () => void befores++);
          agent.hooks.addCallback(AfterInvocationEvent, () => void afters++);
          for (const [i, cls] of EVENTS.entries())
            agent.hooks.addCallback(cls as HookEventClass<InstanceType<typeof cls>>, () => {
              if (fault?.event === i && seen++ === fault.nth) throw new Error("injected fault");
            });
          if (snapshot) {
            agent.messages = structuredClone(snapshot.messages);
            agent.interruptState = InterruptState.fromJSON(snapshot.interrupts);
          }
          return agent;
        };
        const snap = (a: Agent): Snapshot =>
          JSON.parse(JSON.stringify({ messages: a.messages, interrupts: a.interruptState.toJSON() }));
        const answersFor = (a: Agent, bits: boolean[]): Answers =>
          a.interruptState.pending().map((i, k) => {
            const yes = bits[k % 4]!;
            const call = /^hook:beforeToolCall:([^:]+):/.exec(i.id)?.[1];
            if (yes && call) approved.add(call);
            return { interruptResponse: { interruptId: i.id, response: { approved: yes } } };
          });
        const invoke = async (a: Agent, input: string | Answers | undefined, abortAt?: number) => {
          let events = 0;
          try {
            for await (const _ of a.stream(input, { signal: controller.signal, invocationState: { threadId: "th" } }))
              if (abortAt !== undefined && events++ === abortAt) controller.abort();
          } catch (error) {
            // Failures are allowed; what they leave behind is checked below.
            expect(error).toBeInstanceOf(Error);
          }
        };

        let agent = makeAgent();
        const older: Snapshot[] = [];
        let lastAnswers: Answers | undefined;
        for (const step of steps) {
          controller = new AbortController();
          fault = step.fault;
          seen = 0;
          older.push(snap(agent));
          const state = agent.interruptState;
          if (step.kind === "discard" && state.activated) agent.discardInterrupts();
          if (step.kind === "roundTrip") agent = makeAgent(snap(agent));
          if (step.kind === "replayOld") {
            const old = makeAgent(older[Math.floor(older.length / 2)]);
            if (old.interruptState.activated) await invoke(old, answersFor(old, step.answers));
          } else if (step.kind === "twin" && agent.interruptState.activated && agent.interruptState.pending().length) {
            const twin = makeAgent(snap(agent));
            const answers = answersFor(agent, step.answers);
            await Promise.all([invoke(agent, answers, step.abortAt), invoke(twin, answers)]);
            expectConsistentTranscript(twin.messages);
          } else if (agent.interruptState.activated) {
            const pending = agent.interruptState.pending();
            if (pending.length === 0 && lastAnswers) await invoke(agent, lastAnswers, step.abortAt);
            else if (pending.length) {
              lastAnswers = answersFor(agent, step.answers);
              await invoke(agent, lastAnswers, step.abortAt);
            } else agent.discardInterrupts();
          } else {
            await invoke(agent, "go", step.abortAt);
          }
          for (const [id, n] of runs) expect(n, `call ${id} ran ${n} times`).toBe(1);
          expect(afters).toBe(befores);
          expect(agent.running).toBe(false);
          expectConsistentTranscript(agent.messages);
        }
        // The agent can run again.
        fault = undefined;
        controller = new AbortController();
        if (agent.interruptState.activated) agent.discardInterrupts();
        turnIndex = turns.length;
        const final = await agent.invoke("again", { invocationState: { threadId: "th" } });
        expect(final.stopReason).toBe("endTurn");
        expectConsistentTranscript(agent.messages);
        // A call cut off by an abort settles (and is recorded) when it ends, after its run returned.
        await new Promise((r) => setTimeout(r, 0));
        await expectAuditMatchesRuns(audit, "th", finished);
      },
    ),
    { numRuns: RUNS },
  );
}, 120_000);
