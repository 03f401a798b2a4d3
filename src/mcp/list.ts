/**
 * `listMcpTools`: the paginated `tools/list` of an MCP server as runner tools, degrading per
 * tool: a malformed definition, a clashing name or a tool over the caps is skipped with a
 * warning and the others load.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { looseObject } from "../agent/shared/lean-schemas.js";
import { describe } from "../errors.js";
import { defaultLogger, type Logger } from "../logger.js";
import { McpConnectError } from "./errors.js";
import { anyResult, type McpAgentTool, type McpClientLike, type McpToolOptions, mcpTool } from "./tool.js";

// nextCursor is read leniently: a null or numeric cursor ends the list rather than losing the page's tools.
const listPageSchema = looseObject({ tools: z.array(z.unknown()), nextCursor: z.optional(z.unknown()) });

/** Default of {@link ListMcpToolsOptions.maxTools}: OpenAI refuses more tools than this in one request. */
export const DEFAULT_MAX_TOOLS = 128;
/** Default of {@link ListMcpToolsOptions.maxToolSpecChars}: 256 KiB of tool specs in every model request. */
export const DEFAULT_MAX_TOOL_SPEC_CHARS = 262_144;

/** Options of {@link listMcpTools}. */
export interface ListMcpToolsOptions extends McpToolOptions {
  /** Keeps only the tools it returns `true` for (called with the server's name). Default: all. */
  filter?: (serverToolName: string) => boolean;
  /** Pages read at most (a guard against a server that never stops paginating). Default 100. */
  maxPages?: number;
  /** Tools kept at most, in server order; the rest are skipped with one warning. Default 128. */
  maxTools?: number;
  /**
   * Total characters of the kept tools' specs (name, description, input schema as JSON), which
   * are sent with every model request; a tool that does not fit is skipped. Default 262 144.
   */
  maxToolSpecChars?: number;
  signal?: AbortSignal;
  /** Where skipped tool definitions are reported. Default {@link defaultLogger}. */
  logger?: Logger;
}

/**
 * Lists the server's tools (following `nextCursor` pages; an empty or non-string cursor ends the list) and
 * builds a runner tool for each. A malformed definition, a second tool mapping to a name already
 * taken, and tools beyond `maxTools` or `maxToolSpecChars` are skipped with a warning; the rest are kept.
 * @param client - A connected client.
 * @param options - See {@link ListMcpToolsOptions}.
 * @returns The tools, in server order.
 * @throws McpConnectError when listing fails (timeout included), a page is malformed, or pages loop.
 */
export async function listMcpTools(client: McpClientLike, options: ListMcpToolsOptions = {}): Promise<McpAgentTool[]> {
  const log = options.logger ?? defaultLogger;
  const maxPages = options.maxPages ?? 100;
  const maxTools = options.maxTools ?? DEFAULT_MAX_TOOLS;
  const maxChars = options.maxToolSpecChars ?? DEFAULT_MAX_TOOL_SPEC_CHARS;
  const tools: McpAgentTool[] = [];
  const byName = new Map<string, string>();
  const over = { count: 0, size: 0 };
  let chars = 0;
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw new McpConnectError("(client)", `MCP tools/list returned more than ${maxPages} pages.`);
    const data = await listPage(client, cursor, options);
    for (const definition of data.tools) {
      const serverName = (definition as { name?: unknown } | null)?.name;
      if (options.filter && typeof serverName === "string" && !options.filter(serverName)) continue;
      const built = build(client, definition, options, log);
      if (built === undefined) continue;
      const { tool: t, size } = built;
      const other = byName.get(t.name);
      if (other !== undefined) {
        log.warn("MCP: skipping a tool whose name is already taken.", {
          name: t.name,
          first: describe(other, 80),
          skipped: describe(t.serverToolName, 80),
        });
        continue;
      }
      if (tools.length >= maxTools) over.count++;
      else if (chars + size > maxChars) over.size++;
      else {
        tools.push(t);
        byName.set(t.name, t.serverToolName);
        chars += size;
      }
    }
    // An empty cursor is no cursor: following it would re-read the first page.
    cursor = typeof data.nextCursor === "string" && data.nextCursor !== "" ? data.nextCursor : undefined;
    if (cursor === undefined) break;
    if (seenCursors.has(cursor))
      throw new McpConnectError("(client)", `MCP tools/list repeated the cursor "${describe(cursor, 80)}".`);
    seenCursors.add(cursor);
  }
  if (over.count > 0 || over.size > 0) {
    log.warn(
      `MCP: the server lists more tools than the model is shown (at most ${maxTools} tools, ${maxChars} characters of specs).`,
      {
        kept: tools.length,
        overCount: over.count,
        overSize: over.size,
      },
    );
  }
  return tools;
}

/** Builds one tool and measures its spec, or warns and returns `undefined` for a malformed one. */
function build(
  client: McpClientLike,
  definition: unknown,
  options: ListMcpToolsOptions,
  log: Logger,
): { tool: McpAgentTool; size: number } | undefined {
  const serverName = (definition as { name?: unknown } | null)?.name;
  let t: McpAgentTool;
  let size: number;
  try {
    t = mcpTool(client, definition, options);
    // Inside the try: a schema nested deep enough makes JSON.stringify throw, and that is one bad tool.
    size = JSON.stringify(t.spec).length;
  } catch (error) {
    log.warn("MCP: skipping a malformed tool definition.", {
      name: describe(serverName, 80),
      error: describe(error, 500),
    });
    return undefined;
  }
  if (t.serverToolName.length + (options.prefix ?? "").length > t.name.length) {
    log.warn("MCP: a tool name was too long for the model APIs and was shortened.", {
      name: describe(t.serverToolName, 80),
      as: t.name,
    });
  }
  return { tool: t, size };
}

async function listPage(
  client: McpClientLike,
  cursor: string | undefined,
  options: ListMcpToolsOptions,
): Promise<z.infer<typeof listPageSchema>> {
  let raw: unknown;
  try {
    raw = await client.request(
      { method: "tools/list", ...(cursor === undefined ? {} : { params: { cursor } }) },
      anyResult,
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      },
    );
  } catch (error) {
    throw new McpConnectError("(client)", `MCP tools/list failed: ${describe(error, 500)}`, error);
  }
  const parsed = listPageSchema.safeParse(raw);
  if (!parsed.success) {
    throw new McpConnectError(
      "(client)",
      `MCP tools/list returned a malformed page: ${describe(z.prettifyError(parsed.error), 500)}`,
    );
  }
  return parsed.data;
}
