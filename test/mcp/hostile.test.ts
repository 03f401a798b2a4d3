/**
 * MCP against a hostile server on loopback: results and tool lists degrade per item, every wait is
 * bounded, names fit the providers' limits, and what reaches the model is capped.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { Agent, type ToolResultBlock } from "../../src/index.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { connectMcp, type McpAgentTool, McpConnectError, type McpConnection } from "../../src/mcp/index.js";
import { expectConsistentTranscript } from "../agent/helpers.js";
import { type HostileBehaviour, type HostileServer, startHostileServer, toolDef } from "./hostile.js";

const open: { server: HostileServer; conn?: McpConnection }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.conn?.close().catch(() => undefined);
    await o.server.stop();
  }
});

const quiet = () => ({ warn: vi.fn(), error: vi.fn() });

async function hostile(
  behaviour: HostileBehaviour,
  options: { timeoutMs?: number; logger?: ReturnType<typeof quiet> } = {},
) {
  const server = await startHostileServer(behaviour);
  const entry: { server: HostileServer; conn?: McpConnection } = { server };
  open.push(entry);
  const conn = await connectMcp({ url: server.url, logger: options.logger ?? quiet(), ...options });
  entry.conn = conn;
  return { server, conn };
}

/** Runs one call of `name` through an agent and returns its result block. */
async function callThroughAgent(tools: McpAgentTool[], name: string, input: unknown = {}): Promise<ToolResultBlock> {
  const model = new ScriptedModel({ script: [{ toolCalls: [{ name, input }] }, { text: "ok" }] });
  const agent = new Agent({ model, tools });
  await agent.invoke("go");
  expectConsistentTranscript(agent.messages);
  const blocks = agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
  return blocks[0]!;
}

const textOf = (r: ToolResultBlock) =>
  r.content.map((p) => (p.type === "text" ? p.text : JSON.stringify(p))).join("\n");

/** Settles within `ms`, or reports that it did not. */
async function within<T>(
  ms: number,
  p: Promise<T>,
): Promise<{ settled: true; value?: T; error?: unknown } | { settled: false }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<{ settled: false }>((r) => {
    timer = setTimeout(() => r({ settled: false }), ms);
  });
  try {
    return await Promise.race([
      p.then(
        (value) => ({ settled: true as const, value }),
        (error: unknown) => ({ settled: true as const, error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("tools/call results are mapped per item", () => {
  test("one unknown content item does not hide a call that ran: valid items kept, a short note for the bad one", async () => {
    const { conn } = await hostile({
      list: () => ({ result: { tools: [toolDef("charge")] } }),
      call: () => ({
        result: {
          content: [
            { type: "text", text: "charged $5" },
            { type: "video", url: "x" },
          ],
        },
      }),
    });
    const r = await callThroughAgent(await conn.tools(), "charge");
    expect(r.status).toBe("success");
    expect(r.content[0]).toEqual({ type: "text", text: "charged $5" });
    expect(textOf(r)).toMatch(/video.*1|1.*video/);
    expect(textOf(r)).not.toContain("could not be called");
    expect(textOf(r).length).toBeLessThan(200);
  });

  test("a thousand bad items stay short notes, isError is honoured", async () => {
    const bad = Array.from({ length: 1000 }, (_, i) => ({ type: "image", data: i }));
    const { conn } = await hostile({
      list: () => ({ result: { tools: [toolDef("charge")] } }),
      call: () => ({ result: { isError: true, content: [{ type: "text", text: "declined" }, ...bad] } }),
    });
    const r = await callThroughAgent(await conn.tools(), "charge");
    expect(r.status).toBe("error");
    expect(r.content[0]).toEqual({ type: "text", text: "declined" });
    expect(textOf(r).length).toBeLessThan(80_000);
    expect(textOf(r)).not.toContain("could not be called");
  });

  test("a result that is not an object at all is an error result, shown briefly", async () => {
    const { conn } = await hostile({
      list: () => ({ result: { tools: [toolDef("charge")] } }),
      call: () => ({ result: { content: "x".repeat(100_000) } }),
    });
    const r = await callThroughAgent(await conn.tools(), "charge");
    expect(r.status).toBe("error");
    expect(textOf(r).length).toBeLessThan(500);
  });

  test("a server error with a huge message reaches the model bounded to a few hundred characters", async () => {
    const { conn } = await hostile({
      list: () => ({ result: { tools: [toolDef("charge")] } }),
      call: () => ({ error: { code: -32000, message: `boom ${"y".repeat(1_000_000)}` } }),
    });
    const r = await callThroughAgent(await conn.tools(), "charge");
    expect(r.status).toBe("error");
    expect(textOf(r)).toContain("boom");
    expect(textOf(r).length).toBeLessThan(600);
  });
});

describe("tools/list degrades per tool", () => {
  const badShapes: unknown[] = [
    { name: "bad", inputSchema: { type: "string" } },
    { name: 5, inputSchema: { type: "object" } },
    { name: "", inputSchema: { type: "object" } },
    { inputSchema: { type: "object" } },
    { name: "no_schema" },
    { name: "bad_annotations", inputSchema: { type: "object" }, annotations: "x" },
    { name: "bad_description", inputSchema: { type: "object" }, description: 42 },
    null,
    "tool",
  ];

  test("each malformed definition is skipped with a warning; the others load", async () => {
    const logger = quiet();
    const { conn } = await hostile(
      { list: () => ({ result: { tools: [toolDef("good_one"), ...badShapes, toolDef("good_two")] } }) },
      { logger },
    );
    const tools = await conn.tools();
    expect(tools.map((t) => t.name)).toEqual(["good_one", "good_two"]);
    expect(logger.warn).toHaveBeenCalledTimes(badShapes.length);
  });

  test("a 200-character name is never sent over the 64-character limit; a warning says so", async () => {
    const logger = quiet();
    const long = `t${"x".repeat(199)}`;
    const { conn } = await hostile(
      {
        list: () => ({ result: { tools: [toolDef(long), toolDef(`${long}y`), toolDef("short")] } }),
        call: (name) => ({ result: { content: [{ type: "text", text: `ran ${name.length}` }] } }),
      },
      { logger },
    );
    const tools = await conn.tools();
    expect(tools.every((t) => t.name.length <= 64 && /^[a-zA-Z0-9_-]+$/.test(t.name))).toBe(true);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(tools.map((t) => t.serverToolName)).toContain("short");
    expect(logger.warn).toHaveBeenCalled();
    const longTool = tools.find((t) => t.serverToolName === long);
    if (longTool) expect(textOf(await callThroughAgent(tools, longTool.name))).toBe("ran 200");
  });

  test.each(["", null, 7])("a nextCursor of %j ends pagination; the page's tools load", async (nextCursor) => {
    const { server, conn } = await hostile({
      list: (cursor) => ({ result: { tools: [toolDef(`page${cursor || "0"}`)], nextCursor } }),
    });
    const tools = await conn.tools();
    expect(tools.map((t) => t.name)).toEqual(["page0"]);
    expect(server.cursors).toHaveLength(1);
  });

  test("the number and total size of tools exposed to the model are capped, with a warning", async () => {
    const logger = quiet();
    const many = Array.from({ length: 300 }, (_, i) => toolDef(`t${i}`));
    const { conn } = await hostile({ list: () => ({ result: { tools: many } }) }, { logger });
    const tools = await conn.tools();
    expect(tools).toHaveLength(128);
    expect(tools[0]!.name).toBe("t0");
    expect(logger.warn).toHaveBeenCalledWith(expect.stringMatching(/128/), expect.anything());

    const big = Array.from({ length: 40 }, (_, i) => toolDef(`big${i}`, { description: "d".repeat(20_000) }));
    const second = await hostile({ list: () => ({ result: { tools: big } }) }, { logger: quiet() });
    const bigTools = await second.conn.tools();
    const size = bigTools.reduce((n, t) => n + JSON.stringify(t.spec).length, 0);
    expect(bigTools.length).toBeGreaterThan(0);
    expect(bigTools.length).toBeLessThan(40);
    expect(size).toBeLessThanOrEqual(262_144);
  });
});

describe("outputSchema", () => {
  const calc = toolDef("calc", {
    outputSchema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
  });
  const wrong = { content: [{ type: "text", text: "total: x" }], structuredContent: { total: "x" } };

  test("is checked for every listed tool, whichever page listed it", async () => {
    const onePage = await hostile({ list: () => ({ result: { tools: [calc] } }), call: () => ({ result: wrong }) });
    const twoPages = await hostile({
      list: (cursor) => ({
        result: cursor === "" ? { tools: [calc], nextCursor: "p2" } : { tools: [toolDef("other")] },
      }),
      call: () => ({ result: wrong }),
    });
    const a = await callThroughAgent(await onePage.conn.tools(), "calc");
    const b = await callThroughAgent(await twoPages.conn.tools(), "calc");
    for (const r of [a, b]) {
      expect(r.structuredContent).toBeUndefined();
      expect(r.content[0]).toEqual({ type: "text", text: "total: x" });
      expect(textOf(r)).toMatch(/outputSchema/);
      expect(textOf(r)).not.toContain("could not be called");
    }
    expect(b).toEqual({ ...a, toolUseId: b.toolUseId });
  });

  test("valid structuredContent passes on every page", async () => {
    const twoPages = await hostile({
      list: (cursor) => ({
        result: cursor === "" ? { tools: [toolDef("other")], nextCursor: "p2" } : { tools: [calc] },
      }),
      call: () => ({ result: { content: [], structuredContent: { total: 3 } } }),
    });
    const r = await callThroughAgent(await twoPages.conn.tools(), "calc");
    expect(r).toMatchObject({ status: "success", structuredContent: { total: 3 } });
  });
});

describe("every wait has a bound", () => {
  test("timeoutMs applies to tools/list", async () => {
    const { conn } = await hostile({ list: () => ({ hang: true }) }, { timeoutMs: 300 });
    const outcome = await within(3_000, conn.tools());
    expect(outcome.settled).toBe(true);
    expect(outcome.settled && outcome.error).toBeInstanceOf(Error);
  });

  test("connecting is bounded although the server never answers notifications/initialized", async () => {
    const server = await startHostileServer({ hangInitialized: true });
    open.push({ server });
    const outcome = await within(4_000, connectMcp({ url: server.url, timeoutMs: 300 }));
    expect(outcome.settled).toBe(true);
    expect(outcome.settled && outcome.error).toBeInstanceOf(McpConnectError);
  });

  test("close() returns although the server never answers the session DELETE", async () => {
    const server = await startHostileServer({ hangDelete: true });
    open.push({ server });
    const conn = await connectMcp({ url: server.url, timeoutMs: 300 });
    const outcome = await within(3_000, conn.close());
    expect(outcome).toEqual({ settled: true, value: undefined });
  });

  test("a timed-out call ends as an error result and its response stream is closed", async () => {
    const { server, conn } = await hostile(
      { list: () => ({ result: { tools: [toolDef("stuck")] } }), call: () => ({ openStream: true }) },
      { timeoutMs: 300 },
    );
    const r = await callThroughAgent(await conn.tools(), "stuck");
    expect(r.status).toBe("error");
    expect(textOf(r)).toMatch(/timed out/i);
    await vi.waitFor(() => expect(server.closedCalls()).toBe(1), { timeout: 2_000 });
  });
});
