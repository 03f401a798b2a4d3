/**
 * A hostile MCP server on loopback: raw JSON-RPC over Streamable HTTP on node:http, so a test can
 * answer `tools/list` and `tools/call` with anything (invalid items, stalls, endless streams) and
 * leave the session DELETE unanswered. The handshake is answered like a real server does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How one request is answered: a JSON-RPC result, a hang, or an SSE stream that never ends. */
export type HostileAnswer =
  | { result: unknown }
  /** The result as JSON text, sent verbatim (for values `JSON.stringify` cannot write, e.g. 5,000 levels deep). */
  | { rawResult: string }
  | { error: unknown }
  | { hang: true }
  | { openStream: true };

/** What the server does for each method. */
export interface HostileBehaviour {
  /** `tools/list`, by cursor (`""` for the first page). */
  list?: (cursor: string) => HostileAnswer;
  /** `tools/call`, by tool name. */
  call?: (name: string, args: unknown) => HostileAnswer;
  /** Leave the session DELETE unanswered. */
  hangDelete?: boolean;
  /** Leave `notifications/initialized` unanswered (the last step of connecting). */
  hangInitialized?: boolean;
}

/** A running hostile server. */
export interface HostileServer {
  url: string;
  /** JSON-RPC methods received, in order (notifications included). */
  methods: string[];
  /** Cursors of the `tools/list` requests. */
  cursors: (string | undefined)[];
  /** Number of `tools/call` responses (hung or streamed) whose connection the client closed. */
  closedCalls: () => number;
  stop(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<any> {
  let raw = "";
  for await (const chunk of req) raw += chunk;
  return raw ? JSON.parse(raw) : undefined;
}

/** Starts a hostile server on 127.0.0.1, port 0. */
export async function startHostileServer(behaviour: HostileBehaviour): Promise<HostileServer> {
  const methods: string[] = [];
  const cursors: (string | undefined)[] = [];
  let closedCalls = 0;
  const answer = (res: ServerResponse, id: unknown, a: HostileAnswer, isCall: boolean) => {
    if (isCall) res.on("close", () => closedCalls++);
    if ("hang" in a) return;
    if ("openStream" in a) {
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s1" });
      res.write(": open\n\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
    if ("rawResult" in a) return res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${a.rawResult}}`);
    res.end(JSON.stringify({ jsonrpc: "2.0", id, ...("error" in a ? { error: a.error } : { result: a.result }) }));
  };
  const http = createServer(async (req, res) => {
    if (req.method === "DELETE") {
      if (!behaviour.hangDelete) res.writeHead(200).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const msg = await readBody(req);
    methods.push(msg.method);
    if (msg.id === undefined) {
      if (behaviour.hangInitialized && msg.method === "notifications/initialized") return;
      res.writeHead(202).end();
      return;
    }
    switch (msg.method) {
      case "initialize":
        return answer(
          res,
          msg.id,
          {
            result: {
              protocolVersion: msg.params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "hostile", version: "1.0.0" },
            },
          },
          false,
        );
      case "tools/list":
        cursors.push(msg.params?.cursor);
        return answer(res, msg.id, behaviour.list?.(msg.params?.cursor ?? "") ?? { result: { tools: [] } }, false);
      case "tools/call":
        return answer(
          res,
          msg.id,
          behaviour.call?.(msg.params.name, msg.params.arguments) ?? { result: { content: [] } },
          true,
        );
      default:
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } }));
    }
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    cursors,
    closedCalls: () => closedCalls,
    async stop() {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** A valid tool definition with an object input schema. */
export const toolDef = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  inputSchema: { type: "object" },
  ...extra,
});
