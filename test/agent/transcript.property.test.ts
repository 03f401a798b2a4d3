/**
 * Property: whatever the model asks, whatever hooks and tools do (errors, cancels, interrupts,
 * aborts at any stream event), the transcript never holds a toolUse without its toolResult.
 */
import fc from "fast-check";
import { expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  BeforeToolCallEvent,
  ScriptedModel,
  tool,
  type JsonValue,
  type Message,
  type ScriptedTurn,
} from "../../src/index.js";
import { expectConsistentTranscript } from "./helpers.js";

const MODES = ["ok", "throw", "toolInterrupt", "hookInterrupt", "cancel", "abortAndHang", "hookThrow", "stop"] as const;
type Mode = (typeof MODES)[number];

const callArb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...MODES).map((mode) => ({ name: "t", input: { mode } })) },
  { weight: 1, arbitrary: fc.constant({ name: "t", input: { mode: 5 } }) },
  { weight: 1, arbitrary: fc.constant({ name: "t", rawInput: "{bad" }) },
  { weight: 1, arbitrary: fc.constant({ name: "nope", input: {} }) },
);
const turnArb: fc.Arbitrary<ScriptedTurn> = fc.oneof(
  fc.string({ maxLength: 20 }).map((text) => ({ text: text || "." })),
  fc
    .record({
      text: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
      toolCalls: fc.array(callArb, { minLength: 1, maxLength: 3 }),
    })
    .map((t) => (t.text ? { text: t.text, toolCalls: t.toolCalls } : { toolCalls: t.toolCalls })),
);
const stepArb = fc.record({
  abortAtEvent: fc.option(fc.nat(30), { nil: undefined }),
  answers: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  discard: fc.boolean(),
});

function checkRoles(messages: readonly Message[]) {
  for (let i = 1; i < messages.length; i++) {
    expect(
      messages[i - 1]!.role === "assistant" && messages[i]!.role === "assistant",
      `two assistant messages at ${i}`,
    ).toBe(false);
  }
}

test("the transcript stays consistent under random scripts, interrupts, cancels, errors and aborts", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(turnArb, { minLength: 1, maxLength: 5 }),
      fc.array(stepArb, { minLength: 1, maxLength: 6 }),
      async (turns, steps) => {
        let controller = new AbortController();
        const t = tool({
          name: "t",
          description: "",
          inputSchema: z.object({ mode: z.enum(MODES) }),
          callback: (input, ctx) => {
            const mode: Mode = input.mode;
            if (mode === "throw") throw new Error("tool failed");
            if (mode === "toolInterrupt") return `answer ${JSON.stringify(ctx.interrupt({ name: "q" }))}`;
            if (mode === "abortAndHang") {
              controller.abort();
              return new Promise<string>(() => undefined);
            }
            return "ok";
          },
        });
        const model = new ScriptedModel({
          ids: "sequential",
          script: (req) => turns[req.callIndex] ?? { text: "end" },
        });
        const agent = new Agent({ model, tools: [t] });
        agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
          const mode = (e.toolUse.input as { mode?: unknown } | undefined)?.mode;
          if (mode === "cancel") e.cancel = "no";
          if (mode === "stop") e.stopLoop = true;
          if (mode === "hookThrow") throw new Error("hook failed");
          if (mode === "hookInterrupt" && e.interrupt({ name: "ok" }) === false) e.cancel = "denied";
        });

        for (const step of steps) {
          controller = new AbortController();
          let input: string | { interruptResponse: { interruptId: string; response: JsonValue } }[] = "go";
          if (agent.interruptState.activated) {
            if (step.discard) agent.discardInterrupts();
            else
              input = agent.interruptState
                .pending()
                .map((i, k) => ({ interruptResponse: { interruptId: i.id, response: step.answers[k % 4]! } }));
          }
          let events = 0;
          try {
            for await (const e of agent.stream(input, { signal: controller.signal })) {
              if (step.abortAtEvent !== undefined && events++ === step.abortAtEvent) controller.abort();
              if (e.type === "result" && e.result.stopReason === "interrupt")
                expect(e.result.interrupts.length).toBeGreaterThan(0);
            }
          } catch (error) {
            expect((error as Error).message).toMatch(/hook failed/);
            // A failed resume keeps its answers so it can be retried; here we move on instead.
            if (agent.interruptState.activated) agent.discardInterrupts();
          }
          expect(agent.running).toBe(false);
          expectConsistentTranscript(agent.messages);
          checkRoles(agent.messages);
          // A paused run has something to answer; otherwise nothing is pending.
          if (agent.interruptState.activated) expect(agent.interruptState.pending().length).toBeGreaterThan(0);
          else expect(agent.interruptState.interrupts.size).toBe(0);
        }
      },
    ),
    { numRuns: 150 },
  );
});
