/**
 * A real MCP server on loopback for the tests: the SDK's McpServer behind its
 * StreamableHTTPServerTransport on node:http (port 0), one transport per session.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";

/** A 1×1 transparent PNG. */
export const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** What the server saw. */
export interface ServerLog {
  /** `request.params._meta` of every `record_meta` call, in order. */
  metas: (Record<string, unknown> | undefined)[];
  /** Headers of every HTTP request. */
  headers: IncomingMessage["headers"][];
  /** `tools/list` requests served. */
  listPages: number;
  /** Set when a `slow` call's signal was aborted by the client. */
  slowAborted: boolean;
  /** Resolves when a `slow` call has started. */
  slowStarted: Promise<void>;
}

/** Number of extra tools (`filler_0` …) registered to force `tools/list` pagination. */
export const FILLER_TOOLS = 120;
/** Tools per `tools/list` page. */
export const PAGE_SIZE = 50;

function buildServer(log: ServerLog, onSlowStart: () => void): McpServer {
  const server = new McpServer({ name: "kaboo-test", version: "1.0.0" });
  server.registerTool(
    "lookup",
    {
      title: "Look up an order",
      description: "Reads an order.",
      inputSchema: { id: z.string() },
      annotations: { readOnlyHint: true, destructiveHint: false, title: "Order lookup" },
    },
    async ({ id }) => ({ content: [{ type: "text", text: `order ${id}: shipped` }] }),
  );
  server.registerTool(
    "quote",
    {
      description: "Prices a basket.",
      inputSchema: { items: z.number().int() },
      outputSchema: { total: z.number(), currency: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ items }) => {
      const structured = { total: items * 2.5, currency: "EUR" };
      return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );
  server.registerTool("snapshot", { description: "Returns an image.", inputSchema: {} }, async () => ({
    content: [
      { type: "text", text: "here is the picture" },
      { type: "image", data: PNG_1X1, mimeType: "image/png" },
      { type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "embedded notes" } },
      { type: "resource", resource: { uri: "file:///report.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
    ],
  }));
  server.registerTool("fail", { description: "Always fails.", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "card declined" }],
    isError: true,
  }));
  server.registerTool(
    "record_meta",
    { description: "Records the _meta it receives.", inputSchema: { note: z.string().optional() } },
    async (_args, extra) => {
      log.metas.push(extra._meta as Record<string, unknown> | undefined);
      return { content: [{ type: "text", text: "recorded" }] };
    },
  );
  server.registerTool("slow", { description: "Waits until cancelled.", inputSchema: {} }, async (_args, extra) => {
    onSlowStart();
    await new Promise<void>((resolve) => {
      if (extra.signal.aborted) resolve();
      extra.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    log.slowAborted = extra.signal.aborted;
    return { content: [{ type: "text", text: "slow done" }] };
  });
  for (let i = 0; i < FILLER_TOOLS; i++) {
    server.registerTool(`filler_${i}`, { description: `Filler ${i}.`, inputSchema: {} }, async () => ({ content: [] }));
  }
  // McpServer lists every tool in one page; wrap its handler so tools/list paginates like big servers do.
  type Handler = (
    request: { method: string; params?: { cursor?: string } },
    extra: unknown,
  ) => Promise<{ tools: unknown[] }>;
  const all = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers.get(
    "tools/list",
  )!;
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    log.listPages++;
    const { tools } = await all({ method: "tools/list", params: {} }, extra);
    const start = Number(request.params?.cursor ?? 0);
    const next = start + PAGE_SIZE;
    return { tools: tools.slice(start, next) as never, ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  return server;
}

/** A running server: its URL, what it saw, and `stop()`. */
export interface TestServer {
  url: string;
  log: ServerLog;
  stop(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

/** Starts the server on 127.0.0.1, port 0. */
export async function startServer(): Promise<TestServer> {
  let slowStart!: () => void;
  const log: ServerLog = {
    metas: [],
    headers: [],
    listPages: 0,
    slowAborted: false,
    slowStarted: new Promise<void>((r) => {
      slowStart = r;
    }),
  };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    log.headers.push(req.headers);
    const parsed = req.method === "POST" ? await body(req) : undefined;
    const sid = req.headers["mcp-session-id"];
    let transport = typeof sid === "string" ? sessions.get(sid) : undefined;
    if (!transport) {
      if (typeof sid === "string" || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, t),
      });
      t.onclose = () => {
        if (t.sessionId) sessions.delete(t.sessionId);
      };
      await buildServer(log, slowStart).connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res, parsed);
  };
  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    log,
    async stop() {
      for (const t of sessions.values()) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
