import { afterEach, describe, expect, test, vi } from "vitest";
import { Agent, ScriptedModel } from "../../src/index.js";

describe("model stream and the abort signal", () => {
  afterEach(() => vi.restoreAllMocks());

  /** Abort listeners added during a one-turn run whose answer streams in `events` text deltas. */
  async function listenersFor(events: number): Promise<number> {
    const model = new ScriptedModel({ script: [{ text: "x".repeat(events) }], chunkSize: 1 });
    const agent = new Agent({ model });
    const add = vi.spyOn(EventTarget.prototype, "addEventListener");
    const remove = vi.spyOn(EventTarget.prototype, "removeEventListener");
    const result = await agent.invoke("go", { signal: new AbortController().signal });
    expect(result.message.content).toEqual([{ type: "text", text: "x".repeat(events) }]);
    const added = add.mock.calls.filter(([type]) => type === "abort").length;
    expect(remove.mock.calls.filter(([type]) => type === "abort").length).toBeLessThanOrEqual(added);
    vi.restoreAllMocks();
    return added;
  }

  test("one abort listener per stream, however many events it has", async () => {
    expect(await listenersFor(500)).toBe(await listenersFor(5));
  });
});
