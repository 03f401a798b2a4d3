/**
 * `kaboo-workflows/mcp`: MCP server tools for the runner, over Streamable HTTP
 * through `@modelcontextprotocol/sdk` (an optional peer, loaded only by this entry).
 *
 * Pair it with {@link hooks!MCPCallMetaHook | MCPCallMetaHook} (from `kaboo-workflows/hooks`) to send
 * per-call `_meta` (`toolCallId`, `kaboo/actor`, a provider's own keys).
 *
 * @example
 * ```ts
 * import { connectMcp } from "kaboo-workflows/mcp";
 * import { MCPCallMetaHook } from "kaboo-workflows/hooks";
 * const mcp = await connectMcp({ url: "https://mcp.example.com/mcp", prefix: "merchant___" });
 * const agent = new Agent({ model, tools: await mcp.tools(), hooks: [new MCPCallMetaHook()] });
 * ```
 *
 * @module
 */
export { connectMcp } from "./connect.js";
export { DEFAULT_MCP_TIMEOUT_MS } from "./connect.js";
export type { ConnectMcpOptions, McpConnection } from "./connect.js";
export { mcpTool, mcpToolName, MAX_TOOL_NAME } from "./tool.js";
export type { McpAgentTool, McpClientLike, McpOutputValidator, McpToolDefinition, McpToolOptions } from "./tool.js";
export { listMcpTools, DEFAULT_MAX_TOOLS, DEFAULT_MAX_TOOL_SPEC_CHARS } from "./list.js";
export type { ListMcpToolsOptions } from "./list.js";
export { mcpResultToOutput } from "./content.js";
export { McpCallError, McpConnectError } from "./errors.js";
