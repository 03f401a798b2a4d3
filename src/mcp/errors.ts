/**
 * Errors of the MCP entry: runtime failures talking to an MCP server.
 *
 * @module
 */
import { KabooError } from "../errors.js";

/** Connecting to an MCP server, or listing its tools, failed. */
export class McpConnectError extends KabooError {
  readonly code = "MCP_CONNECT_FAILED" as const;
  /** The server's URL (or `"(client)"` for a client the caller connected). */
  readonly url: string;
  /**
   * @param url - The server's URL.
   * @param message - What failed.
   * @param cause - The underlying error.
   */
  constructor(url: string, message: string, cause?: unknown) {
    super(message, { cause });
    this.url = url;
  }
}

/**
 * An MCP tool call failed before the server answered (network down, protocol
 * error, timeout). A tool that ran and failed is not this: it is an error result.
 */
export class McpCallError extends KabooError {
  readonly code = "MCP_CALL_FAILED" as const;
  /** The server's name of the tool (without any prefix). */
  readonly serverToolName: string;
  /**
   * @param serverToolName - The tool's name on the server.
   * @param message - What failed.
   * @param cause - The underlying error.
   */
  constructor(serverToolName: string, message: string, cause?: unknown) {
    super(message, { cause });
    this.serverToolName = serverToolName;
  }
}
