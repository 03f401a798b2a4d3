/** MCP tools end to end against a real MCP server on loopback (the SDK's server on node:http). */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { Agent, AfterToolCallEvent, type HookRegistry, type ToolResultBlock } from "../../src/index.js";
import { ToolDefinitionError } from "../../src/errors.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import {
  connectMcp,
  listMcpTools,
  mcpResultToOutput,
  mcpTool,
  mcpToolName,
  McpCallError,
  McpConnectError,
  type McpClientLike,
  type McpConnection,
} from "../../src/mcp/index.js";
import { expectConsistentTranscript } from "../agent/helpers.js";
import { FILLER_TOOLS, PAGE_SIZE, PNG_1X1, startServer, type TestServer } from "./server.js";

let server: TestServer;
let mcp: McpConnection;

beforeAll(async () => {
  server = await startServer();
  mcp = await connectMcp({ url: server.url, headers: { "x-kaboo-test": "yes" }, prefix: "merchant___" });
});
afterAll(async () => {
  await mcp.close();
  await server.stop();
});

function results(agent: Agent): ToolResultBlock[] {
  return agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
}

describe("connectMcp and tools()", () => {
  test("lists every page, prefixes names, keeps specs and annotations, sends the headers", async () => {
    const before = server.log.listPages;
    const tools = await mcp.tools();
    expect(tools).toHaveLength(6 + FILLER_TOOLS);
    expect(server.log.listPages - before).toBe(Math.ceil((6 + FILLER_TOOLS) / PAGE_SIZE));
    expect(tools.every((t) => t.name.startsWith("merchant___") && t.kind === "mcp")).toBe(true);
    const lookup = tools.find((t) => t.serverToolName === "lookup")!;
    expect(lookup.name).toBe("merchant___lookup");
    expect(lookup.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, title: "Order lookup" });
    expect(lookup.spec.description).toBe("Reads an order.");
    expect(lookup.spec.inputSchema).toMatchObject({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
    });
    expect(tools.find((t) => t.serverToolName === "quote")!.annotations).toEqual({ destructiveHint: true });
    expect(server.log.headers.every((h) => h["x-kaboo-test"] === "yes")).toBe(true);
  });

  test("filter keeps only the named tools", async () => {
    const tools = await mcp.tools({ filter: (n) => !n.startsWith("filler_") });
    expect(tools.map((t) => t.serverToolName).sort()).toEqual([
      "fail",
      "lookup",
      "quote",
      "record_meta",
      "slow",
      "snapshot",
    ]);
  });

  test("an unreachable server is a McpConnectError naming the URL", async () => {
    const down = await startServer();
    await down.stop();
    const error = await connectMcp({ url: down.url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as McpConnectError).code).toBe("MCP_CONNECT_FAILED");
    expect((error as Error).message).toContain(down.url);
  });
});

describe("an agent calling MCP tools", () => {
  test("text, structuredContent, images, embedded resources and isError come back mapped", async () => {
    const tools = await mcp.tools({ filter: (n) => !n.startsWith("filler_") });
    const model = new ScriptedModel({
      ids: "sequential",
      script: [
        {
          toolCalls: [
            { name: "merchant___lookup", input: { id: "A7" } },
            { name: "merchant___quote", input: { items: 2 } },
            { name: "merchant___snapshot", input: {} },
            { name: "merchant___fail", input: {} },
          ],
        },
        { text: "done" },
      ],
    });
    const agent = new Agent({ model, tools });
    const result = await agent.invoke("go");
    expect(result.stopReason).toBe("endTurn");
    expectConsistentTranscript(agent.messages);
    const [lookup, quote, snapshot, fail] = results(agent);
    expect(lookup).toMatchObject({ status: "success", content: [{ type: "text", text: "order A7: shipped" }] });
    expect(quote!.status).toBe("success");
    expect(quote!.structuredContent).toEqual({ total: 5, currency: "EUR" });
    expect(snapshot!.content).toEqual([
      { type: "text", text: "here is the picture" },
      { type: "image", data: PNG_1X1, mimeType: "image/png" },
      { type: "text", text: "embedded notes" },
      { type: "document", data: "JVBERi0=", mimeType: "application/pdf", name: "file:///report.pdf" },
    ]);
    expect(fail).toMatchObject({ status: "error", content: [{ type: "text", text: "card declined" }] });
  });

  test("input that is not a JSON object is refused before the server is called", async () => {
    const tools = await mcp.tools({ filter: (n) => n === "record_meta" });
    const before = server.log.metas.length;
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "merchant___record_meta", input: [1, 2] }] }, { text: "ok" }],
    });
    const agent = new Agent({ model, tools });
    await agent.invoke("go");
    const [r] = results(agent);
    expect(r!.status).toBe("error");
    expect(JSON.stringify(r!.content)).toContain("must be a JSON object");
    expect(server.log.metas.length).toBe(before);
  });

  test("input the server rejects becomes an error result the model reads", async () => {
    const tools = await mcp.tools({ filter: (n) => n === "lookup" });
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "merchant___lookup", input: { id: 7 } }] }, { text: "ok" }],
    });
    const agent = new Agent({ model, tools });
    const result = await agent.invoke("go");
    expect(result.stopReason).toBe("endTurn");
    expect(results(agent)[0]!.status).toBe("error");
  });

  test("server down after listing: a clear error result, the run is not crashed", async () => {
    const own = await startServer();
    const conn = await connectMcp({ url: own.url });
    const tools = await conn.tools({ filter: (n) => n === "record_meta" });
    await own.stop();
    const errors: unknown[] = [];
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "record_meta", input: {} }] }, { text: "the shop is down" }],
    });
    const agent = new Agent({
      model,
      tools,
      hooks: [
        {
          registerHooks: (r: HookRegistry) => void r.addCallback(AfterToolCallEvent, (e) => void errors.push(e.error)),
        },
      ],
    });
    const result = await agent.invoke("go");
    expect(result.stopReason).toBe("endTurn");
    expectConsistentTranscript(agent.messages);
    const [r] = results(agent);
    expect(r!.status).toBe("error");
    expect((r!.content[0] as { text: string }).text).toMatch(/^Error: MCP tool "record_meta" could not be called: /);
    expect(errors[0]).toBeInstanceOf(McpCallError);
    await conn.close();
  });

  test("abort during an MCP call: the run ends cancelled, the server's call is cancelled too", async () => {
    const tools = await mcp.tools({ filter: (n) => n === "slow" });
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "merchant___slow", input: {} }] }, { text: "never" }],
    });
    const agent = new Agent({ model, tools });
    const controller = new AbortController();
    const run = agent.invoke("go", { signal: controller.signal });
    await server.log.slowStarted;
    controller.abort(new Error("user pressed stop"));
    const result = await run;
    expect(result.stopReason).toBe("cancelled");
    expectConsistentTranscript(agent.messages);
    expect(model.calls).toBe(1);
    await vi.waitFor(() => expect(server.log.slowAborted).toBe(true));
  });
});

describe("listMcpTools with a hand-made client", () => {
  const page = (tools: unknown[], nextCursor?: string) => ({ tools, ...(nextCursor ? { nextCursor } : {}) });
  const def = (name: string) => ({ name, inputSchema: { type: "object" } });
  const client = (pages: Record<string, unknown>): McpClientLike => ({
    request: async ({ method, params }) =>
      method === "tools/list" ? pages[(params?.cursor as string | undefined) ?? ""] : { content: [] },
  });

  test("a repeated cursor is an error, not an endless loop", async () => {
    const c = client({ "": page([def("a")], "x"), x: page([def("b")], "x") });
    await expect(listMcpTools(c)).rejects.toThrow(McpConnectError);
  });

  test("a malformed definition is skipped and logged; unsafe characters become _", async () => {
    const warn = vi.fn();
    const c = client({ "": page([def("ok.tool/v2"), { name: "bad", inputSchema: { type: "string" } }, 42]) });
    const tools = await listMcpTools(c, { logger: { warn, error: vi.fn() } });
    expect(tools.map((t) => t.name)).toEqual(["ok_tool_v2"]);
    expect(tools[0]!.serverToolName).toBe("ok.tool/v2");
    expect(warn).toHaveBeenCalledTimes(2);
  });

  test("a schema nested too deep to copy or measure is one bad tool, not a failed list", async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    const warn = vi.fn();
    const c = client({ "": page([{ name: "deep", inputSchema: { type: "object", properties: deep } }, def("ok")]) });
    const tools = await listMcpTools(c, { logger: { warn, error: vi.fn() } });
    expect(tools.map((t) => t.name)).toEqual(["ok"]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  test("a second server tool that maps to a name already taken is skipped with a warning", async () => {
    const warn = vi.fn();
    const c = client({ "": page([def("a.b"), def("a_b"), def("c")]) });
    const tools = await listMcpTools(c, { logger: { warn, error: vi.fn() } });
    expect(tools.map((t) => [t.name, t.serverToolName])).toEqual([
      ["a_b", "a.b"],
      ["c", "c"],
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  test("tool names always fit the model APIs: 64 characters at most, distinct when cut (property)", async () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 30 }), (name, prefix) => {
        const n = mcpToolName(name, prefix);
        expect(n.length).toBeLessThanOrEqual(64);
        if (name.length > 0 || prefix.length > 0) expect(n).toMatch(/^[a-zA-Z0-9_-]+$/);
      }),
    );
    expect(mcpToolName("x".repeat(200))).not.toBe(mcpToolName(`${"x".repeat(199)}y`));
  });

  test("a malformed page is a McpConnectError", async () => {
    await expect(listMcpTools(client({ "": { tools: "nope" } }))).rejects.toThrow(McpConnectError);
  });

  test("mcpTool refuses a definition without an object input schema", () => {
    expect(() => mcpTool(client({}), { name: "x" })).toThrow(ToolDefinitionError);
  });
});

describe("mcpResultToOutput", () => {
  test("maps each content type", () => {
    const out = mcpResultToOutput({
      content: [
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "https://x/y", name: "y", mimeType: "text/csv" },
        { type: "resource", resource: { uri: "file:///p.png", mimeType: "image/png", blob: PNG_1X1 } },
        { type: "video", data: "x" },
        { type: "image", data: "x" },
      ],
    });
    expect(out.content).toEqual([
      { type: "text", text: "[audio audio/wav, not shown]" },
      { type: "text", text: "[resource y (text/csv): https://x/y]" },
      { type: "image", data: PNG_1X1, mimeType: "image/png", name: "file:///p.png" },
      { type: "text", text: "[unreadable MCP content item 3 of type video]" },
      { type: "text", text: "[unreadable MCP content item 4 of type image]" },
    ]);
  });

  test("structuredContent alone is shown as a JSON part and kept", () => {
    expect(mcpResultToOutput({ content: [], structuredContent: { a: 1 } })).toEqual({
      status: "success",
      content: [{ type: "json", json: { a: 1 } }],
      structuredContent: { a: 1 },
    });
  });

  test("an old-protocol toolResult becomes a JSON part", () => {
    expect(mcpResultToOutput({ toolResult: { ok: true } })).toEqual({
      status: "success",
      content: [{ type: "json", json: { ok: true } }],
    });
  });

  test("a malformed result is an error output", () => {
    for (const bad of [null, 42, "x", { content: "nope" }, { isError: "yes" }])
      expect(mcpResultToOutput(bad).status).toBe("error");
  });

  test("never throws and always returns content parts the runner knows (property)", () => {
    const known = new Set(["text", "json", "image", "document"]);
    fc.assert(
      fc.property(
        fc.anything(),
        fc.array(
          fc.oneof(
            fc.anything(),
            fc.record({
              type: fc.constantFrom("text", "image", "resource", "audio"),
              data: fc.anything(),
              text: fc.anything(),
              mimeType: fc.anything(),
              resource: fc.anything(),
            }),
          ),
        ),
        (structured, content) => {
          const out = mcpResultToOutput({ content, structuredContent: structured });
          expect(["success", "error"]).toContain(out.status);
          for (const part of out.content) expect(known.has(part.type)).toBe(true);
          if (out.structuredContent !== undefined)
            expect(JSON.stringify(JSON.parse(JSON.stringify(out.structuredContent)))).toBe(
              JSON.stringify(out.structuredContent),
            );
        },
      ),
    );
  });
});
