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
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { describe } from "../errors.js";
import type { Logger } from "../logger.js";
import { McpConnectError } from "./errors.js";
import { boundedMcpFetch } from "./fetch.js";
import { type ListMcpToolsOptions, listMcpTools } from "./list.js";
import type { McpAgentTool } from "./tool.js";

/** Default of {@link ConnectMcpOptions.timeoutMs} (the SDK's own request timeout). */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
// A stuck notification or session DELETE has no timeout of its own in the SDK; a request has, so
// the wait for headers is a little longer than it and never cuts a request short.
const HEADERS_GRACE_MS = 1_000;

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
  /**
   * Longest wait in milliseconds for each request (`initialize`, `tools/list` pages, `tools/call`)
   * and for `close()`; a stalled response's stream is closed when its request times out. Default 60 000.
   */
  timeoutMs?: number;
  /** Tools exposed to the model at most (see {@link ListMcpToolsOptions.maxTools}). Default 128. */
  maxTools?: number;
  /** Total characters of tool specs exposed to the model (see {@link ListMcpToolsOptions.maxToolSpecChars}). Default 262 144. */
  maxToolSpecChars?: number;
  /**
   * Passed to the SDK's `Client`. In Cloudflare Workers pass
   * `{ jsonSchemaValidator: new CfWorkerJsonSchemaValidator() }` (from
   * `@modelcontextprotocol/sdk/validation/cfworker`): the default (Ajv) compiles code at runtime.
   * The same validator checks each tool's `outputSchema`.
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
  tools(
    options?: Pick<ListMcpToolsOptions, "filter" | "signal" | "maxTools" | "maxToolSpecChars">,
  ): Promise<McpAgentTool[]>;
  /** Ends the session (best effort, waiting at most `timeoutMs` for the server) and closes the connection. */
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
  const timeoutMs = options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  const baseFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const transport = new StreamableHTTPClientTransport(url, {
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    fetch: boundedMcpFetch(baseFetch, timeoutMs + HEADERS_GRACE_MS),
  });
  const outputValidator = options.clientOptions?.jsonSchemaValidator ?? new AjvJsonSchemaValidator();
  const client = new Client(
    { name: options.name ?? "kaboo-workflows", version: options.version ?? "0.1.0" },
    { ...options.clientOptions, jsonSchemaValidator: outputValidator },
  );
  try {
    await client.connect(transport, { ...(options.signal ? { signal: options.signal } : {}), timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new McpConnectError(
      url.href,
      `Cannot connect to the MCP server at ${url.href}: ${describe(error, 500)}`,
      error,
    );
  }
  const toolOptions: ListMcpToolsOptions = { timeoutMs, outputValidator };
  for (const key of ["prefix", "logger", "maxTools", "maxToolSpecChars"] as const) {
    if (options[key] !== undefined) (toolOptions as Record<string, unknown>)[key] = options[key];
  }
  return {
    client,
    async tools(more = {}) {
      try {
        return await listMcpTools(client, { ...toolOptions, ...more });
      } catch (error) {
        if (error instanceof McpConnectError)
          throw new McpConnectError(url.href, `${error.message} (${url.href})`, error.cause);
        throw error;
      }
    },
    async close() {
      // A DELETE tells a stateful server to drop the session; a server that is gone cannot, and need not.
      // A server that never answers it must not hold close() up: client.close() then aborts the DELETE.
      await withTimeout(transport.terminateSession(), timeoutMs).catch(() => undefined);
      await client.close();
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No answer within ${ms} ms.`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
