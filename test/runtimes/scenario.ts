/**
 * The runtime-proof scenario: an agent pauses on an approval raised by a BeforeToolCallEvent hook,
 * its InterruptState crosses a JSON boundary, and a fresh agent resumes it. Bundled from the
 * *built* package (`kaboo-workflows` is aliased to dist/index.js) and run in Chromium, workerd
 * and Deno, so it may use Web APIs only.
 */
import * as z from "zod/v4";
import {
  Agent,
  BeforeToolCallEvent,
  InterruptState,
  ScriptedModel,
  messageText,
  tool,
  toolResultText,
  type JsonValue,
  type Message,
} from "kaboo-workflows";
import { InterruptHook } from "kaboo-workflows/hooks";
import type { ScenarioOutcome } from "./expected.js";

function makeAgent(messages: Message[], record: JsonValue[], pattern?: string): Agent {
  const transfer = tool({
    name: "transfer",
    description: "Sends money to someone.",
    inputSchema: z.object({ to: z.string(), amount: z.number().positive() }),
    callback: ({ to, amount }) => {
      record.push({ to, amount });
      return `sent ${amount} to ${to}`;
    },
  });
  // Rules, not a fixed script, so a fresh model instance on the resumed agent answers correctly.
  const model = new ScriptedModel({
    ids: "sequential",
    script: ({ lastToolResults }) => {
      const result = lastToolResults[0];
      if (result) return { text: `Done: ${toolResultText(result.content)}.` };
      return { toolCalls: [{ name: "transfer", input: { to: "bob", amount: 42 } }] };
    },
  });
  // With a pattern, the package's own gate decides (a glob loads the glob engine: under Deno with no permissions).
  if (pattern !== undefined)
    return new Agent({ model, tools: [transfer], messages, hooks: [new InterruptHook([pattern])] });
  const agent = new Agent({ model, tools: [transfer], messages });
  agent.hooks.addCallback(BeforeToolCallEvent, (event) => {
    const answer = event.interrupt({
      name: "approve",
      reason: { tool: event.toolUse.name, input: event.toolUse.input as JsonValue },
    });
    const approved =
      typeof answer === "object" && answer !== null && !Array.isArray(answer) && answer["approved"] === true;
    if (!approved) event.cancel = "The person denied this call.";
  });
  return agent;
}

/** Runs the scenario and reports what happened. */
export async function runScenario(): Promise<ScenarioOutcome> {
  const toolInputs: JsonValue[] = [];
  const first = makeAgent([], toolInputs);
  const paused = await first.invoke("Send 42 to bob");
  const toolRunsWhilePaused = toolInputs.length;

  // Everything the host keeps between the two runs is plain JSON (as if stored or sent over the wire).
  const saved = JSON.stringify({ messages: first.messages, interruptState: first.interruptState });
  const restored = JSON.parse(saved) as { messages: Message[]; interruptState: { version: number } };

  const second = makeAgent(restored.messages, toolInputs);
  second.interruptState = InterruptState.fromJSON(restored.interruptState);
  const answers = paused.interrupts.map((i) => ({
    interruptResponse: { interruptId: i.id, response: { approved: true } },
  }));
  const resumed = await second.invoke(answers);

  return {
    userAgent: globalThis.navigator?.userAgent ?? "",
    firstStop: paused.stopReason,
    interruptIds: paused.interrupts.map((i) => i.id),
    interruptReason: paused.interrupts[0]?.reason,
    toolRunsWhilePaused,
    stateJsonVersion: restored.interruptState.version,
    resumedStop: resumed.stopReason,
    toolRuns: toolInputs.length,
    toolInputs,
    finalText: messageText(resumed.message),
    transcriptRoles: second.messages.map((m) => m.role),
    globGateStop: (await makeAgent([], [], "tran@(s|z)fer*").invoke("Send 42 to bob")).stopReason,
    globMissStop: (await makeAgent([], [], "refund_*").invoke("Send 42 to bob")).stopReason,
  };
}
