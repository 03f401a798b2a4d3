/**
 * ContextHook's rewrite (hooks/context/rewrite.ts) loads with its agent's first run and is awaited at the
 * first model call only. A load that fails must fail that run before the model is called, with the
 * transcript closed, and be tried again by the next run.
 */
import { beforeEach, describe, expect, test, vi } from "vitest";
import type { ScriptedRequest } from "../../src/index.js";

const load = vi.hoisted(() => ({ offline: false }));
vi.mock("../../src/hooks/context/rewrite.js", async (importOriginal) => {
  if (load.offline) throw new Error("chunk load failed");
  return importOriginal();
});

/** Fresh modules: the hook keeps its loaded rewrite for the page's lifetime. */
async function fresh() {
  vi.resetModules();
  const [core, hooks, context] = await Promise.all([
    import("../../src/index.js"),
    import("../../src/hooks/context-hook.js"),
    import("../../src/agent/run-context.js"),
  ]);
  return { ...core, ...hooks, CONTEXT_ITEMS_KEY: context.CONTEXT_ITEMS_KEY };
}

beforeEach(() => {
  load.offline = false;
});

describe("the rewrite's module", () => {
  test("a failed load fails the run before the model is called; the next run loads it again", async () => {
    const { Agent, ScriptedModel, ContextHook, CONTEXT_ITEMS_KEY, CONTEXT_REPORT_KEY } = await fresh();
    // Every load fails: the one started when the agent initialises, and the first model call's.
    load.offline = true;
    const seen: ScriptedRequest[] = [];
    const model = new ScriptedModel({
      script: [
        (request) => {
          seen.push(request);
          return { text: "fine" };
        },
      ],
    });
    const agent = new Agent({ model, hooks: [new ContextHook()] });
    const state = { [CONTEXT_ITEMS_KEY]: [{ description: "Cart", value: "2 items" }] };
    await expect(agent.invoke("one", { invocationState: { ...state } })).rejects.toThrow(
      /chunk load failed|error when mocking/,
    );
    load.offline = false;
    expect(seen).toHaveLength(0);
    expect(agent.running).toBe(false);

    const invocationState: Record<string, unknown> = { ...state };
    const result = await agent.invoke("two", { invocationState });
    expect(result.stopReason).toBe("endTurn");
    expect(seen).toHaveLength(1);
    const last = seen[0]!.messages.at(-1)!;
    expect(last.content.at(-1)).toMatchObject({
      type: "text",
      text: "<context>\nContext from the app:\n- Cart: 2 items\n</context>",
    });
    expect(invocationState[CONTEXT_REPORT_KEY]).toMatchObject({ callIndex: 0, cleared: 0 });
  });

  test("ready() loads it: the first model call then needs no load", async () => {
    const { Agent, ScriptedModel, ContextHook, CONTEXT_REPORT_KEY } = await fresh();
    const hook = new ContextHook();
    await hook.ready();
    load.offline = true;
    const agent = new Agent({ model: new ScriptedModel({ script: [{ text: "fine" }] }), hooks: [hook] });
    const invocationState: Record<string, unknown> = {};
    expect((await agent.invoke("one", { invocationState })).stopReason).toBe("endTurn");
    expect(invocationState[CONTEXT_REPORT_KEY]).toMatchObject({ callIndex: 0 });
  });
});
