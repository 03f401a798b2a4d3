import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  BeforeToolCallEvent,
  ScriptedModel,
  tool,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../../src/index.js";
import {
  ToolNameSanitizer,
  canonicalToolName,
  editDistance,
  sanitizeToolName,
} from "../../src/hooks/tool-name-sanitizer.js";

interface Case {
  raw: string;
  registered: string[];
  expected: string | null;
  source: string;
}
const corpus = JSON.parse(readFileSync(new URL("./fixtures/garbled-tool-names.json", import.meta.url), "utf8")) as {
  cases: Case[];
};

describe("sanitizeToolName: corpus of garbled names from real models", () => {
  test("has 40+ cases, each with a source thread", () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(40);
    for (const c of corpus.cases) expect(c.source).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+\/(issues|pull)\/\d+$/);
  });
  test.each(corpus.cases.map((c) => [JSON.stringify(c.raw), c] as const))("%s", (_label, c) => {
    const result = sanitizeToolName(c.raw, c.registered);
    if (c.expected === null) expect(result).not.toHaveProperty("name");
    else expect(result).toEqual({ name: c.expected });
  });
});

describe("sanitizeToolName: rules", () => {
  const names = ["get_weather", "search_docs", "send_email"];
  test.each([
    ['"get_weather"', "get_weather"],
    ["'get_weather'", "get_weather"],
    ["`get_weather`", "get_weather"],
    ["get_weather()", "get_weather"],
    ["get_weather.", "get_weather"],
    ["get_weather:", "get_weather"],
    ["<tool_call>get_weather</tool_call>", "get_weather"],
    ["<function=get_weather>", "get_weather"],
    ["default_api.search_docs", "search_docs"],
    ["\n  send-email \n", "send_email"],
    ["functions.`SearchDocs`", "search_docs"],
  ])("%j → %s", (raw, expected) => {
    expect(sanitizeToolName(raw, names)).toEqual({ name: expected });
  });

  test("a registered name is never changed, even if it looks garbled", () => {
    expect(sanitizeToolName("functions.x", ["functions.x", "x"])).toEqual({ name: "functions.x" });
    expect(sanitizeToolName("Edit", ["edit", "Edit"])).toEqual({ name: "Edit" });
  });

  test("no safe match: refusal with the closest registered names, by edit distance", () => {
    expect(sanitizeToolName("get_wether", names)).toEqual({ candidates: ["get_weather"], ambiguous: false });
    expect(sanitizeToolName("totally_unrelated", names)).toEqual({ candidates: [], ambiguous: false });
    expect(sanitizeToolName("", names)).toEqual({ candidates: [], ambiguous: false });
  });

  test("ambiguous: two candidates are listed and neither is picked", () => {
    // Inside recognised framing each word is a candidate too: "edit" and "multi edit" both fit.
    expect(sanitizeToolName("<tool_call>multi edit</tool_call>", ["edit", "multi_edit"])).toEqual({
      candidates: ["edit", "multi_edit"],
      ambiguous: true,
    });
    // A bare name with a space is one name mis-spaced, not two words.
    expect(sanitizeToolName("multi edit", ["edit", "multi_edit"])).toEqual({ name: "multi_edit" });
    // A sentence that mentions a tool is not a call to it.
    expect("name" in sanitizeToolName("never call delete_account", ["delete_account"])).toBe(false);
    expect(sanitizeToolName("GET-WEATHER", ["get_weather", "getWeather"])).toEqual({
      candidates: ["getWeather", "get_weather"],
      ambiguous: true,
    });
  });

  test("helpers", () => {
    expect(canonicalToolName("Get-Weather_Now")).toBe("getweathernow");
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });
});

describe("sanitizeToolName: fuzz", () => {
  const word = fc.stringMatching(/^[a-z]{2,7}$/);
  const toolName = fc
    .tuple(word, fc.option(word, { nil: undefined }), fc.constantFrom("_", "-"))
    .map(([a, b, sep]) => (b ? `${a}${sep}${b}` : a));
  const garble = (
    name: string,
    g: {
      prefix: string;
      suffix: string;
      quote: string;
      pad: string;
      punct: string;
      caseMask: boolean[];
      swapSep: boolean;
    },
  ) => {
    let s = [...name].map((ch, i) => (g.caseMask[i % g.caseMask.length] ? ch.toUpperCase() : ch)).join("");
    if (g.swapSep) s = s.replace(/[-_]/g, (c) => (c === "_" ? "-" : "_"));
    return `${g.pad}${g.prefix}${g.quote}${s}${g.quote}${g.punct}${g.suffix}${g.pad}`;
  };
  const garbling = fc.record({
    prefix: fc.constantFrom("", "functions.", "tools.", "default_api.", "to=functions."),
    suffix: fc.constantFrom(
      "",
      "<|channel|>commentary",
      "<|channel|>analysis",
      "<|constrain|>json",
      "<|end|>",
      "<|call|>",
      ":0",
    ),
    quote: fc.constantFrom("", '"', "'", "`"),
    pad: fc.constantFrom("", " ", "\n"),
    punct: fc.constantFrom("", ".", "()", ":"),
    caseMask: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
    swapSep: fc.boolean(),
  });

  test("any input: the result is a registered name or a refusal whose candidates are registered", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(toolName, { minLength: 1, maxLength: 8 }),
        fc.string({ maxLength: 40 }),
        (registered, raw) => {
          const r = sanitizeToolName(raw, registered);
          if ("name" in r) expect(registered).toContain(r.name);
          else for (const c of r.candidates) expect(registered).toContain(c);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("a garbled registered name maps back to it when its key is unique", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(toolName, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        garbling,
        (registered, pick, g) => {
          const target = registered[pick % registered.length]!;
          const clashes = registered.filter((n) => canonicalToolName(n) === canonicalToolName(target));
          fc.pre(clashes.length === 1);
          expect(sanitizeToolName(garble(target, g), registered)).toEqual({ name: target });
        },
      ),
      { numRuns: 500 },
    );
  });

  test("ambiguous inputs never pick one", () => {
    fc.assert(
      fc.property(word, word, garbling, fc.array(toolName, { maxLength: 4 }), (a, b, g, others) => {
        const twins = [`${a}_${b}`, `${a}-${b}`];
        const registered = [...new Set([...twins, ...others])];
        const raw = garble(twins[0]!, g);
        fc.pre(!registered.includes(raw));
        const r = sanitizeToolName(raw, registered);
        expect(r).not.toHaveProperty("name");
        expect(r).toMatchObject({ ambiguous: true });
        if (!("name" in r)) expect(r.candidates).toEqual(expect.arrayContaining(twins));
      }),
      { numRuns: 500 },
    );
  });
});

describe("ToolNameSanitizer hook", () => {
  function setup(
    calls: { name: string; id?: string }[],
    hooks = [new ToolNameSanitizer({ logger: { warn: () => {}, error: () => {} } })],
  ) {
    const ran: string[] = [];
    const mk = (name: string) =>
      tool({
        name,
        description: name,
        inputSchema: z.object({}),
        callback: () => {
          ran.push(name);
          return `${name} ok`;
        },
      });
    const model = new ScriptedModel({ script: [{ toolCalls: calls }, { text: "done" }], ids: "sequential" });
    const agent = new Agent({ model, tools: [mk("get_weather"), mk("edit"), mk("multi_edit")], hooks });
    return { agent, ran };
  }
  const uses = (agent: Agent) =>
    agent.messages.flatMap((m) => m.content.filter((b): b is ToolUseBlock => b.type === "toolUse"));
  const results = (agent: Agent) =>
    agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));

  test("AfterModelCall rewrites garbled names in the response, so the transcript records the clean name", async () => {
    const { agent, ran } = setup([{ name: "functions.get_weather<|channel|>commentary" }, { name: "Edit" }]);
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("endTurn");
    expect(ran.sort()).toEqual(["edit", "get_weather"]);
    expect(uses(agent).map((u) => u.name)).toEqual(["get_weather", "edit"]);
  });

  test("no safe match: the call is cancelled with a message listing the closest names; ambiguity lists both", async () => {
    const { agent, ran } = setup([
      { name: "get_wether" },
      { name: "<tool_call>multi edit</tool_call>" },
      { name: "launch_rockets" },
    ]);
    await agent.invoke("go");
    expect(ran).toEqual([]);
    const texts = results(agent).map((r) => (r.content[0] as { text: string }).text);
    expect(texts[0]).toBe(
      'Unknown tool "get_wether". Did you mean "get_weather"? Call the tool again with its exact name.',
    );
    expect(texts[1]).toBe(
      'Unknown tool "<tool_call>multi edit</tool_call>": it could mean "edit", "multi_edit". Call the tool again with its exact name.',
    );
    expect(texts[2]).toMatch(
      /^Unknown tool "launch_rockets"\. Available tools: "get_weather", "edit", "multi_edit"\.$/,
    );
    expect(results(agent).every((r) => r.status === "error")).toBe(true);
  });

  test("BeforeToolCall safety net fixes a still-garbled name (toolUse and selectedTool)", async () => {
    const { agent } = setup([]);
    const e = new BeforeToolCallEvent(
      agent,
      {},
      { type: "toolUse", toolUseId: "t1", name: "`GET-WEATHER`", input: {} },
      undefined,
    );
    await agent.hooks.invoke(e);
    expect(e.toolUse.name).toBe("get_weather");
    expect(e.selectedTool).toBe(agent.tool("get_weather"));
    expect(e.cancel).toBe(false);
  });

  test("a call another hook already routed is left alone", async () => {
    const { agent } = setup([]);
    const delegate = agent.tool("edit");
    const e = new BeforeToolCallEvent(
      agent,
      {},
      { type: "toolUse", toolUseId: "t1", name: "custom_thing", input: {} },
      delegate,
    );
    await agent.hooks.invoke(e);
    expect(e.toolUse.name).toBe("custom_thing");
    expect(e.cancel).toBe(false);
  });
});

describe("sanitizeToolName: names that are also header words", () => {
  // Found by the fuzz test above (seed-dependent): a tool named like a Harmony header word was
  // refused when the model appended a special token to its name.
  test.each(["to", "final", "json", "user"])("%s<|end|> maps to a registered tool named %s", (name) => {
    expect(sanitizeToolName(`${name}<|end|>`, [name, "other"])).toEqual({ name });
  });
  // Also found by the fuzz test: a Harmony recipient naming a tool called like a header word.
  test.each(["to", "final", "user"])("to=functions.%s maps to a registered tool named so", (name) => {
    expect(sanitizeToolName(`to=functions.${name}`, [name])).toEqual({ name });
    expect(
      sanitizeToolName(`<|start|>assistant<|channel|>commentary to=functions.${name} <|constrain|>json`, [name]),
    ).toEqual({
      name,
    });
  });
  test("a bare recipient is a role, not a tool: to=assistant names no tool", () => {
    expect("name" in sanitizeToolName("<|channel|>final to=assistant", ["assistant"])).toBe(false);
  });
  test("a header word after a token is still framing, not a name", () => {
    expect(sanitizeToolName("get_weather<|channel|>final", ["get_weather", "final"])).toEqual({ name: "get_weather" });
  });
});
