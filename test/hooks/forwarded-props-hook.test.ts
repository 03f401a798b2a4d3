import { describe, expect, test, vi } from "vitest";
import { Agent, ScriptedModel, BeforeModelCallEvent, UserError } from "../../src/index.js";
import { FORWARDED_PROPS_KEY } from "../../src/agent/run-context.js";
import { ForwardedPropsHook } from "../../src/hooks/forwarded-props-hook.js";
import { capturingLogger } from "../fixtures/logger.js";

function agentWith(hook: ForwardedPropsHook, turns = 2) {
  const model = new ScriptedModel({ script: Array.from({ length: turns }, () => ({ text: "ok" })) });
  const agent = new Agent({ model, systemPrompt: "base prompt", hooks: [hook], state: { keep: 1 } });
  const seen: { prompt: string | undefined; modelId: string }[] = [];
  agent.hooks.addCallback(
    BeforeModelCallEvent,
    (e) => void seen.push({ prompt: e.agent.systemPrompt, modelId: e.agent.model.modelId }),
  );
  return { agent, seen };
}

describe("ForwardedPropsHook", () => {
  test("copies invocationState.forwardedProps into agent state under stateKey", async () => {
    expect(FORWARDED_PROPS_KEY).toBe("forwardedProps");
    const { agent } = agentWith(new ForwardedPropsHook());
    await agent.invoke("hi", { invocationState: { [FORWARDED_PROPS_KEY]: { plan: "pro", kaboo_grants: [] } } });
    expect(agent.state.get("forwarded_props")).toEqual({ plan: "pro", kaboo_grants: [] });
    const custom = agentWith(new ForwardedPropsHook({ stateKey: "props" })).agent;
    await custom.invoke("hi", { invocationState: { forwardedProps: { a: 1 } } });
    expect(custom.state.get("props")).toEqual({ a: 1 });
  });

  test("no props: other state untouched", async () => {
    const { agent } = agentWith(new ForwardedPropsHook());
    await agent.invoke("hi");
    expect(agent.state.toJSON()).toEqual({ keep: 1 });
  });

  test("replaced per run: a later run's props replace the earlier ones, and a run that sends none clears them", async () => {
    const { agent } = agentWith(new ForwardedPropsHook(), 3);
    await agent.invoke("one", { invocationState: { forwardedProps: { plan: "pro", extra: 1 } } });
    expect(agent.state.get("forwarded_props")).toEqual({ plan: "pro", extra: 1 });
    await agent.invoke("two", { invocationState: { forwardedProps: { plan: "free" } } });
    expect(agent.state.get("forwarded_props")).toEqual({ plan: "free" });
    await agent.invoke("three");
    expect(agent.state.get("forwarded_props")).toBeUndefined();
    expect(agent.state.toJSON()).toEqual({ keep: 1 });
  });

  test.each([
    ["an array", [1, 2]],
    ["a string", "plan=pro"],
    ["null", null],
    ["a non-JSON value", { when: new Date(0), fn: () => 1 }],
    ["NaN inside", { n: Number.NaN }],
  ])(
    "malformed props (%s): logged, the previous run's props removed, other state untouched, run continues",
    async (_label, bad) => {
      const logger = capturingLogger();
      const { agent } = agentWith(new ForwardedPropsHook({ logger }));
      agent.state.set("forwarded_props", { old: true });
      const r = await agent.invoke("hi", { invocationState: { forwardedProps: bad } });
      expect(r.stopReason).toBe("endTurn");
      expect(agent.state.get("forwarded_props")).toBeUndefined();
      expect(agent.state.get("keep")).toBe(1);
      expect(logger.warns).toEqual(["ForwardedPropsHook: forwarded props are not a JSON object; skipped."]);
    },
  );

  test("applyAgentConfig: system_prompt and model_id apply for the invocation, then are restored", async () => {
    const logger = capturingLogger();
    const { agent, seen } = agentWith(new ForwardedPropsHook({ applyAgentConfig: true, logger }));
    await agent.invoke("one", {
      invocationState: { forwardedProps: { agent_config: { system_prompt: "be terse", model_id: "big-model" } } },
    });
    await agent.invoke("two", { invocationState: { forwardedProps: {} } });
    expect(seen).toEqual([
      { prompt: "be terse", modelId: "big-model" },
      { prompt: "base prompt", modelId: "scripted" },
    ]);
    expect(agent.systemPrompt).toBe("base prompt");
  });

  test("applyAgentConfig off: agent_config is only copied, never applied", async () => {
    const { agent, seen } = agentWith(new ForwardedPropsHook(), 1);
    await agent.invoke("one", { invocationState: { forwardedProps: { agent_config: { system_prompt: "evil" } } } });
    expect(seen).toEqual([{ prompt: "base prompt", modelId: "scripted" }]);
  });

  test("malformed agent_config is logged and not applied; the props are still stored", async () => {
    const logger = capturingLogger();
    const { agent, seen } = agentWith(new ForwardedPropsHook({ applyAgentConfig: true, logger }), 1);
    logger.warns.length = 0;
    await agent.invoke("one", { invocationState: { forwardedProps: { agent_config: { system_prompt: 42 } } } });
    expect(seen).toEqual([{ prompt: "base prompt", modelId: "scripted" }]);
    expect(logger.warns).toEqual(["ForwardedPropsHook: agent_config is malformed; not applied."]);
    expect(agent.state.get("forwarded_props")).toEqual({ agent_config: { system_prompt: 42 } });
  });

  test("applyAgentConfig warns once per process that it is deprecated (console.warn by default)", async () => {
    vi.resetModules();
    const fresh = await import("../../src/hooks/forwarded-props-hook.js");
    const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
    new fresh.ForwardedPropsHook({ applyAgentConfig: true });
    new fresh.ForwardedPropsHook({ applyAgentConfig: true });
    new fresh.ForwardedPropsHook();
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy.mock.calls[0]![0]).toMatch(/applyAgentConfig .* is deprecated/);
    spy.mockRestore();
  });

  test("an empty stateKey is a UserError", () => {
    expect(() => new ForwardedPropsHook({ stateKey: "" })).toThrow(UserError);
  });
});
