// tool() with a zod schema that has no JSON Schema of its own (zod mini, zod 3.25's zod/v4): the converter
// loads with the agent's first run, not with the page. Each test imports the package afresh, so the
// converter has not been loaded by another test.
import { beforeEach, describe, expect, test, vi } from "vitest";
import * as zm4 from "zod4/mini";
import type * as Core from "../../src/index.js";

let core: typeof Core;
beforeEach(async () => {
  vi.resetModules();
  core = await import("../../src/index.js");
});

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

describe("a zod mini schema's JSON Schema", () => {
  test("is derived at the first run, and the model gets it", async () => {
    const t = core.tool({
      name: "weather",
      description: "Weather",
      inputSchema: zm4.object({ city: zm4.string() }),
      callback: ({ city }) => city,
    });
    expect(() => t.spec.inputSchema).toThrow(core.ToolDefinitionError);
    expect(() => t.spec.inputSchema).toThrow(/prepareTools/);
    const seen: unknown[] = [];
    const model = new core.ScriptedModel({
      script: [
        (r) => {
          seen.push(r.toolSpecs);
          return { text: "ok" };
        },
      ],
    });
    await new core.Agent({ model, tools: [t] }).invoke("go");
    expect(seen).toEqual([[{ name: "weather", description: "Weather", inputSchema: CITY }]]);
    expect(t.spec.inputSchema).toEqual(CITY);
  });

  test("can be derived before the first run with prepareTools()", async () => {
    const t = core.tool({
      name: "w",
      description: "",
      inputSchema: zm4.object({ city: zm4.string() }),
      callback: () => "",
    });
    await new core.Agent({ model: new core.ScriptedModel({ script: [] }), tools: [t] }).prepareTools();
    expect(t.spec.inputSchema).toEqual(CITY);
  });

  test("that is not an object fails each run with ToolDefinitionError before any hook or model call", async () => {
    const t = core.tool({
      name: "opt",
      description: "",
      inputSchema: zm4.optional(zm4.string()) as never,
      callback: () => "",
    });
    let modelCalls = 0;
    const hooksRun: string[] = [];
    const agent = new core.Agent({
      model: new core.ScriptedModel({
        script: [
          () => {
            modelCalls++;
            return { text: "never" };
          },
        ],
      }),
      tools: [t],
    });
    agent.hooks.addCallback(core.AgentInitializedEvent, () => void hooksRun.push("initialized"));
    agent.hooks.addCallback(core.BeforeInvocationEvent, () => void hooksRun.push("before"));
    for (let run = 0; run < 2; run++) {
      await expect(agent.invoke("go")).rejects.toThrow(core.ToolDefinitionError);
      await expect(agent.invoke("go")).rejects.toThrow(/Tool "opt": the input schema must be an object/);
      expect(agent.running).toBe(false);
    }
    await expect(agent.prepareTools()).rejects.toMatchObject({ code: "TOOL_DEFINITION" });
    expect(modelCalls).toBe(0);
    expect(hooksRun).toEqual([]);
    expect(agent.messages).toEqual([]);
    expect(agent.initialized).toBe(false);
  });

  test("that is plainly not an object is refused when the tool is built", () => {
    expect(() => core.tool({ name: "s", description: "", inputSchema: zm4.string(), callback: () => "" })).toThrow(
      core.ToolDefinitionError,
    );
  });
});
