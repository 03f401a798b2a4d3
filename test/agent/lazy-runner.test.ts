// The runner (loop, model calls, tool batches, the ledger's steps, the zod schema converter: runner.ts) loads
// with an agent's first run. A load that fails (a dropped connection on a page) fails that run cleanly and is
// tried again by the next one.
import { afterEach, describe, expect, test, vi } from "vitest";
import * as zm4 from "zod4/mini";

afterEach(() => {
  vi.doUnmock("../../src/agent/runner.js");
  vi.resetModules();
});

describe("the runner's on-demand load", () => {
  test("a failed load of the runner fails the run, and the next run loads it again", async () => {
    vi.resetModules();
    vi.doMock("../../src/agent/runner.js", () => {
      throw new Error("offline");
    });
    const core = await import("../../src/index.js");
    const agent = new core.Agent({ model: new core.ScriptedModel({ script: [{ text: "hi" }, { text: "again" }] }) });
    await expect(agent.invoke("one")).rejects.toThrow(/offline|error when mocking/);
    expect(agent.running).toBe(false);
    expect(agent.messages).toEqual([]);
    vi.doUnmock("../../src/agent/runner.js");
    const result = await agent.invoke("two");
    expect(result.stopReason).toBe("endTurn");
    expect(core.messageText(result.message)).toBe("hi");
  });

  test("with a zod mini tool: a failed load fails the run before the model, and the next run derives its schema", async () => {
    vi.resetModules();
    vi.doMock("../../src/agent/runner.js", () => {
      throw new Error("offline");
    });
    const core = await import("../../src/index.js");
    const t = core.tool({
      name: "w",
      description: "",
      inputSchema: zm4.object({ city: zm4.string() }),
      callback: () => "",
    });
    let modelCalls = 0;
    const agent = new core.Agent({
      model: new core.ScriptedModel({
        script: [
          () => {
            modelCalls++;
            return { text: "ok" };
          },
        ],
      }),
      tools: [t],
    });
    await expect(agent.invoke("one")).rejects.toThrow(/offline|error when mocking/);
    expect(modelCalls).toBe(0);
    vi.doUnmock("../../src/agent/runner.js");
    await agent.invoke("two");
    expect(modelCalls).toBe(1);
    expect(t.spec.inputSchema).toMatchObject({ type: "object", required: ["city"] });
  });
});
