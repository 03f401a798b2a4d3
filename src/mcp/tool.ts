/**
 * MCP tools as runner tools: one {@link AgentTool} per server tool.
 *
 * Only the shape of a client is needed here ({@link McpClientLike}); the SDK's
 * `Client` fits it, so does a host's own. Requests go through `request` with a
 * permissive result schema, so a result the SDK would reject as a whole is
 * mapped here item by item instead (see {@link mcpResultToOutput}).
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { looseObject, sizedString } from "../agent/shared/lean-schemas.js";
import { withinDepth } from "../agent/shared/json-depth.js";
import type { JsonObject } from "../agent/messages/messages.js";
import { DEFAULT_MAX_RESULT_DEPTH } from "../agent/tools/result-cap.js";
import type { ToolAnnotations, ToolContext, ToolOutput } from "../agent/tools/tools.js";
import { describe, ToolDefinitionError } from "../errors.js";
import type { McpMetaTool } from "../hooks/mcp-meta-hook.js";
import { mcpResultToOutput } from "./content.js";
import { McpCallError } from "./errors.js";

/** The part of an MCP client the tools use (the SDK's `Client` has it). */
export interface McpClientLike {
  /**
   * Sends one JSON-RPC request and resolves to its result.
   * @param request - `tools/list` or `tools/call` with its params.
   * @param resultSchema - A schema that accepts any result (the SDK's client validates against it).
   * @param options - Abort signal and timeout in milliseconds.
   */
  request(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: unknown,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
}

/**
 * Checks `structuredContent` against a tool's `outputSchema` (the SDK's Ajv and cfworker
 * validators fit). Compiled once per tool, on its first call.
 */
export interface McpOutputValidator {
  getValidator(schema: JsonObject): (input: unknown) => { valid: boolean; errorMessage?: string | undefined };
}

/** Accepts any result: the SDK's schema would reject a whole result for one bad item. */
export const anyResult = z.unknown();

/** One tool as `tools/list` describes it (checked on arrival). */
export type McpToolDefinition = z.infer<typeof toolDefinitionSchema>;

const toolDefinitionSchema = looseObject({
  name: sizedString(1),
  title: z.optional(z.string()),
  description: z.optional(z.string()),
  inputSchema: looseObject({ type: z.literal("object") }),
  outputSchema: z.optional(looseObject({})),
  annotations: z.optional(
    looseObject({
      title: z.optional(z.string()),
      readOnlyHint: z.optional(z.boolean()),
      destructiveHint: z.optional(z.boolean()),
      idempotentHint: z.optional(z.boolean()),
      openWorldHint: z.optional(z.boolean()),
    }),
  ),
});

/** Options of {@link mcpTool} and {@link listMcpTools}. */
export interface McpToolOptions {
  /** Prepended to each tool's name, e.g. `"merchant___"` → `merchant___pay`. Default `""`. */
  prefix?: string;
  /** Per-request timeout in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Checks `structuredContent` against each tool's `outputSchema`. Default: not checked (`connectMcp` always passes one). */
  outputValidator?: McpOutputValidator;
}

/** An MCP tool as the runner sees it; {@link McpMetaTool.withMeta} binds one call's `_meta`. */
export interface McpAgentTool extends McpMetaTool {
  /** The tool's name on the server (without the prefix). */
  readonly serverToolName: string;
  /** The `_meta` this tool sends with its call (empty unless bound by `withMeta`). */
  readonly meta: JsonObject;
}

/** Longest tool name the model APIs accept (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`; Anthropic: 64 too). */
export const MAX_TOOL_NAME = 64;
/** Longest error text from a server shown to the model. */
export const MAX_ERROR_CHARS = 300;
// Model APIs accept only these characters in tool names.
const UNSAFE = /[^a-zA-Z0-9_-]/g;
// JSON-RPC error code of a request the SDK gave up waiting for.
const REQUEST_TIMEOUT = -32001;

/**
 * The name the model sees: prefix + server name, unsafe characters as `_`, and a name over
 * {@link MAX_TOOL_NAME} cut with a short hash of the full name so two long names stay distinct.
 * @param serverName - The tool's name on the server.
 * @param prefix - Prepended. Default `""`.
 * @returns A name matching `^[a-zA-Z0-9_-]{1,64}$`.
 */
export function mcpToolName(serverName: string, prefix = ""): string {
  const full = `${prefix}${serverName}`.replace(UNSAFE, "_");
  if (full.length <= MAX_TOOL_NAME) return full;
  return `${full.slice(0, MAX_TOOL_NAME - 9)}_${fnv1a(`${prefix}${serverName}`)}`;
}

// 32-bit FNV-1a as 8 hex digits: synchronous (crypto.subtle is not) and enough to tell names apart.
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * Builds the runner tool for one server tool.
 * @param client - A connected client.
 * @param definition - The tool as `tools/list` gave it (validated here).
 * @param options - `prefix` (default `""`), `timeoutMs` (default 60 000), `outputValidator` (default none).
 * @returns The tool: kind `"mcp"`, the server's `inputSchema` as spec, annotations kept.
 * @throws ToolDefinitionError when the definition is malformed.
 */
export function mcpTool(client: McpClientLike, definition: unknown, options: McpToolOptions = {}): McpAgentTool {
  const parsed = toolDefinitionSchema.safeParse(definition);
  if (!parsed.success) throw new ToolDefinitionError(`Malformed MCP tool definition: ${z.prettifyError(parsed.error)}`);
  const def = parsed.data;
  const name = mcpToolName(def.name, options.prefix);
  const inputSchema = structuredClone(def.inputSchema) as JsonObject;
  delete inputSchema.$schema;
  const annotations: ToolAnnotations = {};
  for (const key of ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    const value = def.annotations?.[key];
    if (value !== undefined) (annotations as Record<string, unknown>)[key] = value;
  }
  if (annotations.title === undefined && def.title !== undefined) annotations.title = def.title;
  const spec = { name, description: def.description ?? def.title ?? annotations.title ?? "", inputSchema };
  const call = callerFor(client, def, options);

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
      call: (input, context) => call(input, meta, context),
      withMeta: (more) => bind({ ...meta, ...more }),
    };
    if (Object.keys(annotations).length > 0) (t as { annotations?: ToolAnnotations }).annotations = annotations;
    return t;
  };
  return bind({});
}

type Check = (input: unknown) => { valid: boolean; errorMessage?: string | undefined };

function callerFor(client: McpClientLike, def: McpToolDefinition, options: McpToolOptions) {
  const { timeoutMs, outputValidator } = options;
  // Compiled on first use: a server may list thousands of tools and call few.
  let check: Check | string | undefined;
  const outputCheck = (): Check | string | undefined => {
    if (check === undefined && def.outputSchema && outputValidator) {
      try {
        check = outputValidator.getValidator(def.outputSchema as JsonObject);
      } catch (error) {
        check = `its outputSchema could not be compiled (${describe(error, 120)})`;
      }
    }
    return check;
  };
  return async (input: unknown, meta: JsonObject, context: ToolContext): Promise<ToolOutput> => {
    const params: Record<string, unknown> = { name: def.name, arguments: input };
    if (Object.keys(meta).length > 0) params._meta = meta;
    let result: unknown;
    try {
      result = await client.request({ method: "tools/call", params }, anyResult, {
        signal: context.signal,
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      });
    } catch (error) {
      // On abort the runner reports the cancellation itself; wrapping would hide that.
      if (context.signal.aborted) throw error;
      throw callError(def.name, error);
    }
    return checkStructured(result, outputCheck());
  };
}

function callError(serverToolName: string, error: unknown): McpCallError {
  const shown = describe(serverToolName, MAX_TOOL_NAME);
  // A call that timed out may have run: saying "could not be called" would invite a second charge.
  if ((error as { code?: unknown } | null)?.code === REQUEST_TIMEOUT) {
    return new McpCallError(
      serverToolName,
      `MCP tool "${shown}" timed out waiting for the server's answer; it may have run.`,
      error,
    );
  }
  return new McpCallError(
    serverToolName,
    `MCP tool "${shown}" could not be called: ${describe(error, MAX_ERROR_CHARS)}`,
    error,
  );
}

/** Maps a result, dropping `structuredContent` that does not match the tool's `outputSchema` (with a note). */
function checkStructured(result: unknown, check: Check | string | undefined): ToolOutput {
  if (check === undefined || typeof result !== "object" || result === null) return mcpResultToOutput(result);
  const raw = result as { structuredContent?: unknown; isError?: unknown };
  // Too deep to validate safely: the mapping drops it with a note of its own.
  if (raw.isError === true || !withinDepth(raw.structuredContent, DEFAULT_MAX_RESULT_DEPTH))
    return mcpResultToOutput(result);
  let problem: string | undefined;
  if (typeof check === "string") problem = check;
  else if (raw.structuredContent === undefined)
    problem = "it sent no structuredContent although its outputSchema asks for it";
  else {
    const verdict = check(raw.structuredContent);
    if (!verdict.valid)
      problem = `its structuredContent does not match its outputSchema (${describe(verdict.errorMessage, 160)})`;
  }
  if (problem === undefined) return mcpResultToOutput(result);
  const { structuredContent: _dropped, ...rest } = raw;
  const output = mcpResultToOutput(rest);
  output.content.push({ type: "text", text: `[the MCP tool ran, but ${problem}; the structured result was dropped]` });
  return output;
}
