/** MCPCallMetaHook against a real MCP server on loopback that records the `_meta` it receives. */
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import * as z from "zod/v4";
import {
  Agent,
  BeforeToolCallEvent,
  HookRegistry,
  tool,
  type AgentTool,
  type ToolResultBlock,
  UserError,
} from "../../src/index.js";
import {
  ACTOR_META_KEY,
  isMcpMetaTool,
  MCPCallMetaHook,
  parseImportSpec,
  type McpMetaProvider,
} from "../../src/hooks/mcp-meta-hook.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { connectMcp, mcpTool, type McpAgentTool, type McpConnection } from "../../src/mcp/index.js";
import { expectConsistentTranscript } from "../agent/helpers.js";
import { startServer, type TestServer } from "../mcp/server.js";

const FIXTURE = pathToFileURL(fileURLToPath(new URL("../mcp/fixtures/meta-provider.mjs", import.meta.url))).href;

let server: TestServer;
let mcp: McpConnection;
let recordMeta: McpAgentTool;

beforeAll(async () => {
  server = await startServer();
  mcp = await connectMcp({ url: server.url });
  [recordMeta] = await mcp.tools({ filter: (n) => n === "record_meta" });
});
afterAll(async () => {
  await mcp.close();
  await server.stop();
});

const quietLogger = () => ({ warn: vi.fn(), error: vi.fn() });

/** Runs one agent that calls record_meta with the given ids; returns the metas the server saw and the results. */
async function run(
  hook: MCPCallMetaHook | undefined,
  options: {
    ids?: string[];
    invocationState?: Record<string, unknown>;
    extraTools?: AgentTool[];
    calls?: { name: string; id: string; input?: unknown }[];
  } = {},
) {
  const calls =
    options.calls ?? (options.ids ?? ["call-1"]).map((id) => ({ name: "record_meta", id, input: { note: id } }));
  const before = server.log.metas.length;
  const model = new ScriptedModel({ script: [{ toolCalls: calls }, { text: "done" }] });
  const agent = new Agent({
    name: "shopper",
    model,
    tools: [recordMeta, ...(options.extraTools ?? [])],
    hooks: hook ? [hook] : [],
  });
  const result = await agent.invoke("go", { invocationState: options.invocationState ?? {} });
  expectConsistentTranscript(agent.messages);
  const results = agent.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === "toolResult"));
  return { result, results, metas: server.log.metas.slice(before) };
}

describe("what the server receives", () => {
  test("without the hook no _meta is sent", async () => {
    const { metas } = await run(undefined);
    expect(metas).toEqual([undefined]);
  });

  test("default: toolCallId is the runner's toolUseId, for each of concurrent calls", async () => {
    const { metas } = await run(new MCPCallMetaHook(), { ids: ["call-a", "call-b", "call-c"] });
    expect(metas.map((m) => m?.toolCallId).sort()).toEqual(["call-a", "call-b", "call-c"]);
    expect(metas.every((m) => m && Object.keys(m).length === 1)).toBe(true);
  });

  test("stampActor adds kaboo/actor from the agent name and invocationState", async () => {
    const { metas } = await run(new MCPCallMetaHook(null, { stampActor: true }), {
      invocationState: { threadId: "t-1", runId: "r-9" },
    });
    expect(metas[0]).toEqual({
      toolCallId: "call-1",
      [ACTOR_META_KEY]: { agent: "shopper", thread: "t-1", run: "r-9" },
    });
    const bare = await run(new MCPCallMetaHook(null, { stampActor: true, stampToolCallId: false }));
    expect(bare.metas[0]).toEqual({ [ACTOR_META_KEY]: { agent: "shopper", thread: null, run: null } });
  });

  test("with nothing to stamp the tool is not replaced and no _meta is sent", async () => {
    const { metas } = await run(new MCPCallMetaHook(() => null, { stampToolCallId: false }));
    expect(metas).toEqual([undefined]);
  });

  test("the provider's keys are sent and win over the stamps", async () => {
    const seen: unknown[] = [];
    const provider: McpMetaProvider = (toolUse, ctx) => {
      seen.push([toolUse.toolUseId, toolUse.input, ctx.agent.name, ctx.invocationState.tenant, ctx.tool.name]);
      return { toolCallId: "mine", tenant: ctx.invocationState.tenant as string, [ACTOR_META_KEY]: "custom" };
    };
    const { metas } = await run(new MCPCallMetaHook(provider, { stampActor: true }), {
      invocationState: { tenant: "acme" },
    });
    expect(metas[0]).toEqual({ toolCallId: "mine", tenant: "acme", [ACTOR_META_KEY]: "custom" });
    expect(seen).toEqual([["call-1", { note: "call-1" }, "shopper", "acme", "record_meta"]]);
  });

  test("an async provider is awaited", async () => {
    const { metas } = await run(new MCPCallMetaHook(async () => ({ traceparent: "00-abc-def-01" })));
    expect(metas[0]).toEqual({ traceparent: "00-abc-def-01", toolCallId: "call-1" });
  });
});

describe("non-MCP tools", () => {
  test("are untouched and the provider is not asked about them", async () => {
    const provider = vi.fn(() => ({ x: 1 }));
    const plain = tool({ name: "plain", description: "p", inputSchema: z.object({}), callback: () => "ok" });
    const selected: unknown[] = [];
    const hook = new MCPCallMetaHook(provider);
    const model = new ScriptedModel({
      script: [{ toolCalls: [{ name: "plain", id: "p1", input: {} }] }, { text: "done" }],
    });
    const agent = new Agent({
      model,
      tools: [plain],
      hooks: [
        hook,
        {
          registerHooks: (r: HookRegistry) =>
            void r.addCallback(BeforeToolCallEvent, (e) => void selected.push(e.selectedTool)),
        },
      ],
    });
    await agent.invoke("go");
    expect(selected).toEqual([plain]);
    expect(selected[0]).toBe(plain);
    expect(provider).not.toHaveBeenCalled();
  });
});

describe("import-spec providers", () => {
  test("'file-url#export' and 'file-url:export' resolve once, lazily, and are used", async () => {
    const importer = vi.fn((s: string) => import(s));
    const hook = new MCPCallMetaHook(`${FIXTURE}#metaProvider`, { importer });
    expect(importer).not.toHaveBeenCalled();
    const { metas } = await run(hook, { ids: ["c1", "c2"], invocationState: { runId: "r-1" } });
    expect(importer).toHaveBeenCalledTimes(1);
    expect(importer).toHaveBeenCalledWith(FIXTURE);
    for (const m of metas) expect(m).toMatchObject({ tenant: "acme", via: "import-spec", run: "r-1" });
    expect(metas.map((m) => m?.toolCallId).sort()).toEqual(["c1", "c2"]);
    const colon = await run(new MCPCallMetaHook(`${FIXTURE}:metaProvider`));
    expect(colon.metas[0]).toMatchObject({ via: "import-spec", toolCallId: "call-1" });
    const dflt = await run(new MCPCallMetaHook(FIXTURE));
    expect(dflt.metas[0]).toEqual({ via: "default-export", toolCallId: "call-1" });
  });

  test("ready() fails fast for a spec that does not resolve", async () => {
    await expect(new MCPCallMetaHook(`${FIXTURE}#metaProvider`).ready()).resolves.toBeUndefined();
    await expect(new MCPCallMetaHook("file:///nowhere/missing-provider.mjs#x").ready()).rejects.toThrow(
      /cannot import "file:\/\/\/nowhere\/missing-provider\.mjs"/,
    );
    await expect(new MCPCallMetaHook(`${FIXTURE}#notAFunction`).ready()).rejects.toThrow(
      /must name a function export, got number/,
    );
    await expect(new MCPCallMetaHook(`${FIXTURE}#absent`).ready()).rejects.toThrow(UserError);
  });

  test("a spec that does not resolve fails the call (logged), the server is not called, the run goes on", async () => {
    const logger = quietLogger();
    const { result, results, metas } = await run(
      new MCPCallMetaHook("file:///nowhere/missing-provider.mjs#x", { logger }),
    );
    expect(result.stopReason).toBe("endTurn");
    expect(metas).toEqual([]);
    expect(results[0]!.status).toBe("error");
    expect(JSON.stringify(results[0]!.content)).toContain("call metadata could not be prepared");
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  test("malformed specs are refused at construction", () => {
    for (const bad of ["", "#x", "mod#", "mod#1bad", "mod#a-b"])
      expect(() => new MCPCallMetaHook(bad)).toThrow(UserError);
  });

  test("parseImportSpec", () => {
    expect(parseImportSpec("pkg:fn")).toEqual({ module: "pkg", exportName: "fn" });
    expect(parseImportSpec("./meta.js#provider")).toEqual({ module: "./meta.js", exportName: "provider" });
    expect(parseImportSpec("file:///a/b.mjs")).toEqual({ module: "file:///a/b.mjs", exportName: "default" });
    expect(parseImportSpec("https://cdn.example/m.js:meta")).toEqual({
      module: "https://cdn.example/m.js",
      exportName: "meta",
    });
    expect(parseImportSpec("@scope/pkg/sub")).toEqual({ module: "@scope/pkg/sub", exportName: "default" });
  });
});

describe("bad providers", () => {
  test.each([
    [42, "number"],
    [{}, "Object"],
    [[], "array"],
    [true, "boolean"],
    [Symbol("s"), "symbol"],
  ])("a non-callable provider (%s) is a UserError naming its type", (provider, name) => {
    expect(() => new MCPCallMetaHook(provider as never)).toThrow(UserError);
    expect(() => new MCPCallMetaHook(provider as never)).toThrow(`got ${name}`);
  });

  test("a provider that throws fails the call by default, and proceeds with 'proceed'", async () => {
    const boom = () => {
      throw new Error("vault locked");
    };
    const logger = quietLogger();
    const failed = await run(new MCPCallMetaHook(boom, { logger }));
    expect(failed.metas).toEqual([]);
    expect(failed.results[0]!.status).toBe("error");
    expect(JSON.stringify(failed.results[0]!.content)).toContain("vault locked");
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining("provider failed"),
      expect.objectContaining({ error: "vault locked" }),
    );
    const proceeded = await run(new MCPCallMetaHook(boom, { logger, onProviderError: "proceed" }));
    expect(proceeded.metas[0]).toEqual({ toolCallId: "call-1" });
  });

  test("a provider returning a non-object is logged and ignored", async () => {
    const logger = quietLogger();
    const { metas, results } = await run(new MCPCallMetaHook(() => "not meta", { logger }));
    expect(metas[0]).toEqual({ toolCallId: "call-1" });
    expect(results[0]!.status).toBe("success");
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining("JSON object"),
      expect.objectContaining({ got: "string" }),
    );
  });
});

describe("the hook alone (fake MCP tool)", () => {
  const calls: unknown[] = [];
  const fake = mcpTool(
    { request: async ({ params }) => (calls.push(params), { content: [] }) },
    { name: "pay", inputSchema: { type: "object" }, annotations: { destructiveHint: true } },
    { prefix: "merchant___" },
  );
  const agent = new Agent({ name: "a", model: new ScriptedModel({ script: [] }) });

  async function fire(hook: MCPCallMetaHook, init?: (e: BeforeToolCallEvent) => void) {
    const registry = new HookRegistry();
    hook.registerHooks(registry);
    const event = new BeforeToolCallEvent(
      agent,
      {},
      { type: "toolUse", toolUseId: "u1", name: fake.name, input: {} },
      fake,
    );
    init?.(event);
    await registry.invoke(event);
    return event;
  }

  test("the delegate keeps name, spec, annotations and kind, and chains meta", async () => {
    const event = await fire(new MCPCallMetaHook(() => ({ a: 1 })));
    const d = event.selectedTool!;
    expect(d).not.toBe(fake);
    expect(isMcpMetaTool(d)).toBe(true);
    expect([d.name, d.spec, d.annotations, d.kind]).toEqual([fake.name, fake.spec, fake.annotations, "mcp"]);
    expect((d as McpAgentTool).meta).toEqual({ a: 1, toolCallId: "u1" });
    const twice = (d as McpAgentTool).withMeta({ b: 2, a: 3 }) as McpAgentTool;
    expect(twice.meta).toEqual({ a: 3, toolCallId: "u1", b: 2 });
    expect(fake.meta).toEqual({});
  });

  test("an already-cancelled call is left alone", async () => {
    const provider = vi.fn(() => ({}));
    const event = await fire(new MCPCallMetaHook(provider), (e) => (e.cancel = "no"));
    expect(event.selectedTool).toBe(fake);
    expect(provider).not.toHaveBeenCalled();
  });

  test("any provider result: never throws; a JSON object is merged, anything else ignored (property)", async () => {
    const logger = quietLogger();
    const plain = (v: unknown): v is Record<string, unknown> =>
      typeof v === "object" && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v));
    const isJson = (v: unknown): boolean =>
      v === null ||
      typeof v === "string" ||
      typeof v === "boolean" ||
      (typeof v === "number" && Number.isFinite(v)) ||
      (Array.isArray(v) && v.every(isJson)) ||
      (plain(v) && Object.values(v).every(isJson));
    // zod drops an own "__proto__" key at any depth, so a provider cannot swap the prototype of the
    // meta object or of any object inside it.
    const withoutProto = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(withoutProto)
        : plain(v)
          ? Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (k === "__proto__" ? [] : [[k, withoutProto(x)]])))
          : v;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.anything(), fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue())),
        async (raw) => {
          const event = await fire(new MCPCallMetaHook(() => raw, { logger }));
          const meta = (event.selectedTool as McpAgentTool).meta;
          const merged = plain(raw) && isJson(raw);
          const kept = merged ? (withoutProto(raw) as Record<string, unknown>) : {};
          const expected = { toolCallId: "u1", ...kept };
          expect(meta).toEqual(expected);
        },
      ),
      // A nested own "__proto__" key is dropped too (this expectation once stripped only the top level).
      { numRuns: 300, examples: [[{ "": { ["__proto__"]: "" } }]] },
    );
  });
});
