/**
 * MCP tools as runner tools: one {@link AgentTool} per server tool, and the
 * paginated `tools/list` that builds them.
 *
 * Only the shape of a client is needed here ({@link McpClientLike}); the SDK's
 * `Client` fits it, so does a host's own.
 *
 * @module
 */
import * as z from "zod/v4";
import type { JsonObject } from "../agent/messages.js";
import type { ToolAnnotations, ToolContext, ToolOutput } from "../agent/tools.js";
import { describe, ToolDefinitionError } from "../errors.js";
import type { McpMetaTool } from "../hooks/mcp-meta-hook.js";
import { defaultLogger, type Logger } from "../hooks/logger.js";
import { mcpResultToOutput } from "./content.js";
import { McpCallError, McpConnectError } from "./errors.js";

/** The part of an MCP client the tools use (the SDK's `Client` has it). */
export interface McpClientLike {
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
  listTools(params?: { cursor?: string }, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** One tool as `tools/list` describes it (checked on arrival). */
export type McpToolDefinition = z.infer<typeof toolDefinitionSchema>;

const toolDefinitionSchema = z.looseObject({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.looseObject({ type: z.literal("object") }),
  outputSchema: z.looseObject({}).optional(),
  annotations: z
    .looseObject({
      title: z.string().optional(),
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    })
    .optional(),
});
const listPageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** Options of {@link mcpTool} and {@link listMcpTools}. */
export interface McpToolOptions {
  /** Prepended to each tool's name, e.g. `"merchant___"` → `merchant___pay`. Default `""`. */
  prefix?: string;
  /** Per-request timeout in milliseconds (the SDK's default is 60 000). */
  timeoutMs?: number;
}

/** An MCP tool as the runner sees it; {@link McpMetaTool.withMeta} binds one call's `_meta`. */
export interface McpAgentTool extends McpMetaTool {
  /** The tool's name on the server (without the prefix). */
  readonly serverToolName: string;
  /** The `_meta` this tool sends with its call (empty unless bound by `withMeta`). */
  readonly meta: JsonObject;
}

// Model APIs accept only these characters in tool names (OpenAI: ^[a-zA-Z0-9_-]{1,64}$).
const UNSAFE = /[^a-zA-Z0-9_-]/g;

/**
 * Builds the runner tool for one server tool.
 * @param client - A connected client.
 * @param definition - The tool as `tools/list` gave it (validated here).
 * @param options - `prefix` (default `""`), `timeoutMs` (default: the client's).
 * @returns The tool: kind `"mcp"`, the server's `inputSchema` as spec, annotations kept.
 * @throws ToolDefinitionError when the definition is malformed.
 */
export function mcpTool(client: McpClientLike, definition: unknown, options: McpToolOptions = {}): McpAgentTool {
  const parsed = toolDefinitionSchema.safeParse(definition);
  if (!parsed.success) throw new ToolDefinitionError(`Malformed MCP tool definition: ${z.prettifyError(parsed.error)}`);
  const def = parsed.data;
  const name = `${options.prefix ?? ""}${def.name}`.replace(UNSAFE, "_");
  const inputSchema = structuredClone(def.inputSchema) as JsonObject;
  delete inputSchema.$schema;
  const annotations: ToolAnnotations = {};
  for (const key of ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    const value = def.annotations?.[key];
    if (value !== undefined) (annotations as Record<string, unknown>)[key] = value;
  }
  if (annotations.title === undefined && def.title !== undefined) annotations.title = def.title;
  const spec = { name, description: def.description ?? def.title ?? annotations.title ?? "", inputSchema };
  const timeout = options.timeoutMs;

  const bind = (meta: JsonObject): McpAgentTool => {
    const t: McpAgentTool = {
      name,
      spec,
      kind: "mcp",
      serverToolName: def.name,
      meta,
      validate(input) {
        // Light on purpose: the server validates against its own schema and says what is wrong.
        return typeof input === "object" && input !== null && !Array.isArray(input)
          ? { ok: true, value: input }
          : { ok: false, error: `The input of "${name}" must be a JSON object.` };
      },
      call: (input, context) => callMcp(client, def.name, input, meta, context, timeout),
      withMeta: (more) => bind({ ...meta, ...more }),
    };
    if (Object.keys(annotations).length > 0) (t as { annotations?: ToolAnnotations }).annotations = annotations;
    return t;
  };
  return bind({});
}

async function callMcp(
  client: McpClientLike,
  serverToolName: string,
  input: unknown,
  meta: JsonObject,
  context: ToolContext,
  timeout: number | undefined,
): Promise<ToolOutput> {
  const params: Parameters<McpClientLike["callTool"]>[0] = { name: serverToolName, arguments: input as Record<string, unknown> };
  if (Object.keys(meta).length > 0) params._meta = meta;
  let result: unknown;
  try {
    result = await client.callTool(
      params,
      undefined,
      timeout === undefined ? { signal: context.signal } : { signal: context.signal, timeout },
    );
  } catch (error) {
    // On abort the runner reports the cancellation itself; wrapping would hide that.
    if (context.signal.aborted) throw error;
    throw new McpCallError(serverToolName, `MCP tool "${serverToolName}" could not be called: ${describe(error)}`, error);
  }
  return mcpResultToOutput(result);
}

/** Options of {@link listMcpTools}. */
export interface ListMcpToolsOptions extends McpToolOptions {
  /** Keeps only the tools it returns `true` for (called with the server's name). Default: all. */
  filter?: (serverToolName: string) => boolean;
  /** Pages read at most (a guard against a server that never stops paginating). Default 100. */
  maxPages?: number;
  signal?: AbortSignal;
  /** Where skipped tool definitions are reported. Default {@link defaultLogger}. */
  logger?: Logger;
}

/**
 * Lists the server's tools (following `nextCursor` pages) and builds a runner tool for each.
 * A malformed definition is skipped with a warning; the rest are kept.
 * @param client - A connected client.
 * @param options - See {@link ListMcpToolsOptions}.
 * @returns The tools, in server order.
 * @throws McpConnectError when listing fails or pages loop; ToolDefinitionError when two tools map to one name.
 */
export async function listMcpTools(client: McpClientLike, options: ListMcpToolsOptions = {}): Promise<McpAgentTool[]> {
  const log = options.logger ?? defaultLogger;
  const maxPages = options.maxPages ?? 100;
  const tools: McpAgentTool[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw new McpConnectError("(client)", `MCP tools/list returned more than ${maxPages} pages.`);
    let raw: unknown;
    try {
      raw = await client.listTools(
        cursor === undefined ? {} : { cursor },
        options.signal ? { signal: options.signal } : undefined,
      );
    } catch (error) {
      throw new McpConnectError("(client)", `MCP tools/list failed: ${describe(error)}`, error);
    }
    const parsed = listPageSchema.safeParse(raw);
    if (!parsed.success)
      throw new McpConnectError("(client)", `MCP tools/list returned a malformed page: ${z.prettifyError(parsed.error)}`);
    for (const definition of parsed.data.tools) {
      const serverName = (definition as { name?: unknown } | null)?.name;
      if (options.filter && typeof serverName === "string" && !options.filter(serverName)) continue;
      try {
        tools.push(mcpTool(client, definition, options));
      } catch (error) {
        log.warn("MCP: skipping a malformed tool definition.", { name: String(serverName), error: describe(error) });
      }
    }
    cursor = parsed.data.nextCursor;
    if (cursor === undefined) break;
    if (seenCursors.has(cursor)) throw new McpConnectError("(client)", `MCP tools/list repeated the cursor "${cursor}".`);
    seenCursors.add(cursor);
  }
  const byName = new Map<string, string>();
  for (const t of tools) {
    const other = byName.get(t.name);
    if (other !== undefined) {
      throw new ToolDefinitionError(`MCP tools "${other}" and "${t.serverToolName}" both map to the tool name "${t.name}".`);
    }
    byName.set(t.name, t.serverToolName);
  }
  return tools;
}
