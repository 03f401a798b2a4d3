/**
 * The event log of a stored run run again under its own id after its attempt died (its hold ran
 * out with its log open): the run again goes on in that log. It ends what the dead attempt left
 * open (here a text message and a tool call of the same reply), numbers its own events after them,
 * and the log ends with its RUN_FINISHED; a reattach from any event gets the rest, and the whole
 * log is a stream an AG-UI client's verifier accepts.
 */
import { EventType, type BaseEvent } from "@ag-ui/core";
import { createParser } from "eventsource-parser";
import { describe, expect, test } from "vitest";
import { createAguiHandler } from "../../../src/agui/index.js";
import { endsOfOpenParts } from "../../../src/agui/edge/run/dead-attempt.js";
import { Agent, ScriptedModel } from "../../../src/index.js";
import type { JsonValue } from "../../../src/agent/messages/messages.js";
import { MemoryThreadStore } from "../../../src/stores/memory.js";
import { collect, input } from "../helpers.js";
import { post, quietLogger } from "./fixtures.js";

async function frames(res: Response): Promise<{ id: string | undefined; event: BaseEvent }[]> {
  const out: { id: string | undefined; event: BaseEvent }[] = [];
  createParser({ onEvent: (m) => out.push({ id: m.id, event: JSON.parse(m.data) as BaseEvent }) }).feed(
    await res.text(),
  );
  return out;
}

const at = Date.now();
const dead = (runId: string): JsonValue[] => [
  { type: EventType.RUN_STARTED, threadId: "t1", runId, timestamp: at },
  { type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant", timestamp: at },
  { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "Paying ", timestamp: at },
  { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "transfer", parentMessageId: "m1", timestamp: at },
  { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"to":', timestamp: at },
];

describe("a stored run run again after its attempt died", () => {
  test("the END events of what the dead attempt left open, then the run again's events, to RUN_FINISHED", async () => {
    const store = new MemoryThreadStore();
    const request = input({ threadId: "t1", messages: [{ id: "u1", role: "user", content: "hello" }] });
    // The dead attempt: its hold ran out, five of its events logged (a reply and a call cut off).
    const lease = { token: "dead", runId: request.runId, resume: false, expiresAt: Date.now() - 1 };
    const record = { owner: null, session: null, messages: [], state: {}, answered: {}, lease, updatedAt: at };
    expect(await store.compareAndSet("t1", 0, record)).toBe(true);
    await store.appendEvents("t1", request.runId, 0, dead(request.runId), false);
    const agent = () =>
      new Agent({
        model: new ScriptedModel({ script: ({ lastUserText }) => ({ text: `You said: ${lastUserText}` }) }),
      });
    const handle = createAguiHandler({ stores: { thread: store }, agent, logger: quietLogger() });
    const own = await frames(await handle(post(request)));
    // The request sent again sees its own run: its RUN_STARTED, then its events, numbered after the log's
    // (after the run again's marker and its END events) and naming the attempt that sent them.
    expect(own[0]?.id).toBe(`${request.runId}:0`);
    expect(own[1]?.id).toBe(`${request.runId}:8.1`);
    await collect(
      (async function* () {
        for (const f of own) yield f.event;
      })(),
    );
    const whole = await frames(await handle(post({ kaboo_connect: { threadId: "t1", runId: request.runId } })));
    expect(whole.map((f) => f.id)).toEqual(whole.map((_, i) => `${request.runId}:${i}${i < 5 ? "" : ".1"}`));
    expect(whole.slice(5, 8).map((f) => f.event)).toMatchObject([
      { type: EventType.CUSTOM, name: "kaboo_run_again", value: { attempt: 1 } },
      { type: EventType.TOOL_CALL_END, toolCallId: "c1" },
      { type: EventType.TEXT_MESSAGE_END, messageId: "m1" },
    ]);
    expect(whole.at(-1)?.event.type).toBe(EventType.RUN_FINISHED);
    expect(JSON.stringify(whole.slice(8))).toContain("You said: hello");
    await collect(
      (async function* () {
        for (const f of whole) yield f.event;
      })(),
    );
    for (const after of [0, 3, 4, 5, 6, 7]) {
      const id = whole[after]?.id as string;
      const rest = await frames(await handle(post({ kaboo_connect: { threadId: "t1" } }, { "last-event-id": id })));
      expect(rest).toEqual(whole.slice(after + 1));
    }
    const logged = await store.readEvents("t1", request.runId, -1);
    expect(logged?.ended).toBe(true);
    expect(logged?.events).toHaveLength(whole.length);
  });

  test("the END events name the subagent that opened the part, and close nothing already closed", () => {
    const events = [
      { type: EventType.RUN_STARTED, threadId: "t", runId: "r" },
      { type: EventType.SUBAGENT_STARTED, subagentRunId: "s1", name: "helper" },
      { type: EventType.TEXT_MESSAGE_START, messageId: "a", role: "assistant", subagentRunId: "s1" },
      { type: EventType.REASONING_START, messageId: "think" },
      { type: EventType.REASONING_MESSAGE_START, messageId: "rm", role: "reasoning" },
      { type: EventType.REASONING_MESSAGE_END, messageId: "rm" },
      { type: EventType.TEXT_MESSAGE_START, messageId: "b", role: "assistant" },
      { type: EventType.TEXT_MESSAGE_END, messageId: "b" },
    ] as Parameters<typeof endsOfOpenParts>[0];
    expect(endsOfOpenParts(events, 5)).toEqual([
      { type: EventType.REASONING_END, messageId: "think", timestamp: 5 },
      { type: EventType.TEXT_MESSAGE_END, messageId: "a", subagentRunId: "s1", timestamp: 5 },
      {
        type: EventType.SUBAGENT_ERROR,
        subagentRunId: "s1",
        message: "The process running this agent died; the run was run again.",
        timestamp: 5,
      },
    ]);
  });
});
