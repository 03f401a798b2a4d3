// What a driving tab answers a tab that joins mid-message, and what the joining tab makes of it.
import { EventType, type BaseEvent } from "@ag-ui/core";
import { describe, expect, test } from "vitest";
import { EventRelay, OpenParts } from "../../../src/agui/page/relay.js";

const start = (messageId: string): BaseEvent =>
  ({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" }) as BaseEvent;
const content = (messageId: string, delta: string): BaseEvent =>
  ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta }) as BaseEvent;
const end = (messageId: string): BaseEvent => ({ type: EventType.TEXT_MESSAGE_END, messageId }) as BaseEvent;
const args = (toolCallId: string, delta: string): BaseEvent =>
  ({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta }) as BaseEvent;
const texts = (events: BaseEvent[]) => events.map((e) => `${e.type}:${(e as { delta?: string }).delta ?? ""}`);

describe("joining a run mid-message", () => {
  test("the driver answers with each open part's START and its content so far, in one event", () => {
    const open = new OpenParts();
    for (const e of [
      start("done"),
      content("done", "a"),
      end("done"),
      start("m"),
      content("m", "Sen"),
      content("m", "t 5"),
    ])
      open.note(e);
    open.note({ type: EventType.TOOL_CALL_START, toolCallId: "c", toolCallName: "transfer" } as BaseEvent);
    open.note(args("c", '{"to":'));
    expect(texts(open.catchUp())).toEqual([
      "TEXT_MESSAGE_START:",
      "TEXT_MESSAGE_CONTENT:Sent 5",
      "TOOL_CALL_START:",
      'TOOL_CALL_ARGS:{"to":',
    ]);
    open.note(end("m"));
    open.note({ type: EventType.TOOL_CALL_END, toolCallId: "c" } as BaseEvent);
    expect(open.catchUp()).toEqual([]);
  });

  test("a watcher shows the answer, then the rest live; what it saw start live is not shown twice", () => {
    const relay = new EventRelay();
    // Heard live before the answer: a delta of a message it did not see start (left out), and a whole message start.
    expect(relay.accept(content("m", "Sen"))).toEqual([]);
    expect(relay.accept(start("n"))).toHaveLength(1);
    expect(relay.accept(content("n", "x"))).toHaveLength(1);
    // The driver's answer holds both: "m" is shown from it, "n" is not repeated.
    const answer = [start("m"), content("m", "Sent 5"), start("n"), content("n", "x")];
    expect(texts(answer.flatMap((e) => relay.acceptCatchUp(e)))).toEqual([
      "TEXT_MESSAGE_START:",
      "TEXT_MESSAGE_CONTENT:Sent 5",
    ]);
    expect(texts(relay.accept(content("m", " and")))).toEqual(["TEXT_MESSAGE_CONTENT: and"]);
    expect(relay.accept(end("m"))).toHaveLength(1);
    expect(relay.accept(end("n"))).toHaveLength(1);
    // An answer's event for a part it never started (its START was lost) is left out.
    expect(relay.acceptCatchUp(content("z", "?"))).toEqual([]);
    expect(relay.closeAll()).toEqual([]);
  });
});
