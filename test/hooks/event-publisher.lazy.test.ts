/**
 * What EventPublisher publishes for a run's lifecycle loads with its first event
 * (hooks/event-publisher/lifecycle.ts). A load that fails must fail that run cleanly (before the model is
 * called, the transcript untouched) and be tried again by the next one.
 */
import { describe, expect, test, vi } from "vitest";
import { Agent, ScriptedModel } from "../../src/index.js";
import { EventPublisher, type StreamEvent } from "../../src/hooks/event-publisher.js";

const load = vi.hoisted(() => ({ failures: 1 }));
vi.mock("../../src/hooks/event-publisher/lifecycle.js", async (importOriginal) => {
  if (load.failures > 0) {
    load.failures--;
    throw new Error("chunk load failed");
  }
  return importOriginal();
});

describe("the lifecycle events' module", () => {
  test("a failed load fails the run before the model is called; the next run loads it again", async () => {
    const events: StreamEvent[] = [];
    const publisher = new EventPublisher((e) => void events.push(e), "analyst", { streamGroup: "g" });
    let modelCalls = 0;
    const model = new ScriptedModel({
      script: [
        () => {
          modelCalls++;
          return { text: "fine" };
        },
      ],
    });
    const agent = new Agent({ model, hooks: [publisher] });
    await expect(agent.invoke("one", { invocationState: { threadId: "t" } })).rejects.toThrow(
      /Hook EventPublisher failed on BeforeInvocationEvent/,
    );
    expect(modelCalls).toBe(0);
    expect(agent.running).toBe(false);
    expect(agent.messages).toEqual([]);

    events.length = 0;
    const result = await agent.invoke("two", { invocationState: { threadId: "t" } });
    expect(result.stopReason).toBe("endTurn");
    expect(events.map((e) => e.type)).toEqual([
      "stream_group_start",
      "agent_start",
      "agent_complete",
      "stream_group_end",
    ]);
    // The failed run started no group: the first run that published one is the conversation's first.
    expect(events[0]!.data.stream_group).toBe("g");
  });
});
