/**
 * `connectMcp`: one MCP server over Streamable HTTP, through the SDK's `Client`.
 *
 * This is the only module that loads `@modelcontextprotocol/sdk` (an optional
 * peer). The transport is fetch-based, so it runs in browsers, Workers and Deno.
 *
 * @module
 */
import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe } from "../errors.js";
import type { Logger } from "../hooks/logger.js";
import { McpConnectError } from "./errors.js";
import { listMcpTools, type McpAgentTool } from "./tool.js";

/** Options of {@link connectMcp}. */
export interface ConnectMcpOptions {
  /** The server's Streamable HTTP endpoint, e.g. `https://mcp.example.com/mcp`. */
  url: string | URL;
  /** Sent with every request (e.g. `Authorization`). Default none. */
  headers?: Record<string, string>;
  /** The fetch to use. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Client name announced to the server. Default `"kaboo-workflows"`. */
  name?: string;
  /** Client version announced to the server. Default `"0.1.0"`. */
  version?: string;
  /** Prepended to every tool name (InterruptHook globs rely on it), e.g. `"merchant___"`. Default `""`. */
  prefix?: string;
  /** Per-request timeout in milliseconds. Default: the SDK's (60 000). */
  timeoutMs?: number;
  /**
   * Passed to the SDK's `Client`. In Cloudflare Workers pass
   * `{ jsonSchemaValidator: new CfWorkerJsonSchemaValidator() }` (from
   * `@modelcontextprotocol/sdk/validation/cfworker`): the default (Ajv) compiles code at runtime.
   */
  clientOptions?: ClientOptions;
  /** Cancels connecting. */
  signal?: AbortSignal;
  /** Where skipped tool definitions are reported. Default `console`. */
  logger?: Logger;
}

/** A connected MCP server. */
export interface McpConnection {
  /** The SDK client, for anything beyond tools (resources, prompts). */
  readonly client: Client;
  /**
   * Lists the server's tools (all pages) as runner tools.
   * @param options - `filter` by server tool name (default: all).
   */
  tools(options?: { filter?: (serverToolName: string) => boolean; signal?: AbortSignal }): Promise<McpAgentTool[]>;
  /** Ends the session (best effort) and closes the connection. */
  close(): Promise<void>;
}

/**
 * Connects to an MCP server over Streamable HTTP.
 *
 * @param options - See {@link ConnectMcpOptions}.
 * @returns The {@link McpConnection}.
 * @throws McpConnectError when the server cannot be reached or the handshake fails.
 * @example
 * ```ts
 * const mcp = await connectMcp({ url: "https://mcp.example.com/mcp", headers: { authorization: `Bearer ${token}` }, prefix: "merchant___" });
 * const agent = new Agent({ model, tools: await mcp.tools(), hooks: [new MCPCallMetaHook()] });
 * try { await agent.invoke("Pay invoice 42"); } finally { await mcp.close(); }
 * ```
 */
export async function connectMcp(options: ConnectMcpOptions): Promise<McpConnection> {
  const url = new URL(options.url);
  const transport = new StreamableHTTPClientTransport(url, {
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const client = new Client(
    { name: options.name ?? "kaboo-workflows", version: options.version ?? "0.1.0" },
    options.clientOptions,
  );
  const requestOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  };
  try {
    await client.connect(transport, requestOptions);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new McpConnectError(url.href, `Cannot connect to the MCP server at ${url.href}: ${describe(error)}`, error);
  }
  const toolOptions = {
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  };
  return {
    client,
    async tools(more = {}) {
      try {
        return await listMcpTools(client, { ...toolOptions, ...more });
      } catch (error) {
        if (error instanceof McpConnectError) throw new McpConnectError(url.href, `${error.message} (${url.href})`, error.cause);
        throw error;
      }
    },
    async close() {
      // A DELETE tells a stateful server to drop the session; a server that is gone cannot, and need not.
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}
