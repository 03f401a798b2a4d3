import { expect, test } from "vitest";
import { Agent, ScriptedModel } from "../../src/index.js";
import { HistoryHook, HistoryPolicy, createHistoryExchange } from "../../src/hooks/index.js";
import type { Model } from "../../src/agent/model.js";
import { deferred } from "../agent/helpers.js";

// The summarizer call gets no signal and no timeout: a summarizer that stalls keeps the
// run (AfterInvocation) open forever, even after the run's own AbortSignal fired.
test("HistoryHook: a stalled summarizer does not hang an aborted run", async () => {
  const summarizerCalled = deferred();
  const stalled: Model = {
    modelId: "stalled",
    stream: () => ({
      [Symbol.asyncIterator]: () => ({
        next: () => {
          summarizerCalled.resolve();
          return new Promise<never>(() => {});
        },
      }),
    }),
  } as unknown as Model;
  const policy = new HistoryPolicy({ keep: "masked", summarizeOver: 10, summarizer: stalled });
  const model = new ScriptedModel({
    script: [{ text: "first answer ".repeat(20) }, { text: "second answer ".repeat(20) }],
  });
  const agent = new Agent({ model, hooks: [new HistoryHook("main", { enabled: true, policy })] });
  const stored = {
    main: [
      { role: "user", content: [{ type: "text", text: "old question ".repeat(30) }] },
      { role: "assistant", content: [{ type: "text", text: "old answer ".repeat(30) }] },
    ],
  };
  const invocationState = {};
  createHistoryExchange(invocationState, stored);
  const controller = new AbortController();
  const run = agent.invoke("new question", { invocationState, signal: controller.signal }).then(
    () => "settled",
    () => "settled",
  );
  // Abort once the summarizer is stalled, not after a fixed 100 ms: on a loaded machine the run may
  // not have reached the summarizer by then, and the test would not test the stall.
  await summarizerCalled.promise;
  controller.abort(new Error("client went away"));
  const outcome = await Promise.race([run, new Promise((r) => setTimeout(() => r("still hanging"), 5_000))]);
  expect(outcome).toBe("settled");
}, 15_000);
