/**
 * Tools: the `AgentTool` interface the runner calls, and `tool()`, which builds
 * one from a zod schema and a callback.
 *
 * @module
 */
import * as z from "zod/v4";
import { ToolDefinitionError } from "../errors.js";
import type { ToolSpec } from "../models/model.js";
import type { Agent } from "./agent.js";
import type { InvocationState } from "./events.js";
import type { InterruptRequest } from "./interrupt.js";
import type { JsonObject, JsonValue, ToolResultBlock, ToolResultContent, ToolUseBlock } from "./messages.js";

/** MCP-style hints about what a tool does. */
export interface ToolAnnotations {
  title?: string;
  /** The tool does not change anything (approval gates may skip it). */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite data. */
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool's callback receives besides its input. */
export interface ToolContext {
  readonly agent: Agent;
  readonly toolUse: ToolUseBlock;
  readonly invocationState: InvocationState;
  /** Aborted when the run is cancelled. */
  readonly signal: AbortSignal;
  /**
   * Asks for an answer from outside the run. Id: `tool:<toolUseId>:<name>`.
   * @returns The answer on resume; throws an InterruptSignal to pause the run otherwise.
   */
  interrupt(request: InterruptRequest): JsonValue;
}

/** The result of one call, before the runner stamps the `toolUseId`. */
export interface ToolOutput {
  status: "success" | "error";
  content: ToolResultContent[];
  structuredContent?: JsonValue;
}

/** Result of validating a tool's input. */
export type ValidationResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Anything the runner can call as a tool. */
export interface AgentTool {
  readonly name: string;
  /** Name, description and JSON Schema, as sent to the model. */
  readonly spec: ToolSpec;
  readonly annotations?: ToolAnnotations;
  /** `function` (default), `client` (runs in the browser host), `mcp`, or `agent` (a delegate). */
  readonly kind?: "function" | "client" | "mcp" | "agent";
  /** Checks (and may coerce) the input before `call`; absent means any JSON object is accepted. */
  validate?(input: unknown): ValidationResult;
  /** Runs the tool. Throwing produces an error result the model reads. */
  call(input: unknown, context: ToolContext): Promise<ToolOutput>;
}

/** Options of {@link tool}. */
export interface ToolOptions<S extends z.ZodType, R> {
  /** Unique among the agent's tools; letters, digits, `_` and `-`. */
  name: string;
  description: string;
  /** Input schema; the model gets its JSON Schema, the callback gets the parsed value. */
  inputSchema: S;
  /** Runs the tool; a string becomes text, `ToolOutput` passes through, anything else becomes a JSON part. */
  callback: (input: z.output<S>, context: ToolContext) => R | Promise<R>;
  annotations?: ToolAnnotations;
}

const NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/**
 * Turns a callback's return value into a {@link ToolOutput}.
 * @param value - A string (text), a `ToolOutput` (as is), `undefined` (empty text) or any JSON value.
 */
export function toToolOutput(value: unknown): ToolOutput {
  if (typeof value === "string") return { status: "success", content: [{ type: "text", text: value }] };
  if (value === undefined) return { status: "success", content: [] };
  if (isToolOutput(value)) return value;
  return { status: "success", content: [{ type: "json", json: toJson(value) }] };
}

function isToolOutput(value: unknown): value is ToolOutput {
  const v = value as Partial<ToolOutput> | null;
  return typeof v === "object" && v !== null && (v.status === "success" || v.status === "error") && Array.isArray(v.content);
}

function toJson(value: unknown): JsonValue {
  // Drops functions/undefined and turns Dates into strings, as JSON would on the wire.
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

/**
 * Builds a tool from a zod schema and a callback. Input is validated before the
 * callback runs; invalid input becomes an error result that names the problem.
 *
 * @param options - See {@link ToolOptions}.
 * @returns An {@link AgentTool}.
 * @example
 * ```ts
 * const weather = tool({
 *   name: "get_weather",
 *   description: "Current weather for a city.",
 *   inputSchema: z.object({ city: z.string() }),
 *   annotations: { readOnlyHint: true },
 *   callback: async ({ city }) => ({ city, tempC: 21 }),
 * });
 * ```
 */
export function tool<S extends z.ZodType, R>(options: ToolOptions<S, R>): AgentTool {
  const { name, description, inputSchema, callback, annotations } = options;
  if (!NAME.test(name)) throw new ToolDefinitionError(`Tool name "${name}" must match ${NAME}.`);
  let schema: JsonObject;
  try {
    schema = z.toJSONSchema(inputSchema, { io: "input", unrepresentable: "any" }) as JsonObject;
  } catch (error) {
    throw new ToolDefinitionError(`Tool "${name}": its input schema cannot be expressed as JSON Schema.`, {
      cause: error,
    });
  }
  delete schema.$schema;
  if (schema.type !== "object") throw new ToolDefinitionError(`Tool "${name}": the input schema must be an object.`);
  const fn: AgentTool = {
    name,
    spec: { name, description, inputSchema: schema },
    kind: "function",
    validate(input) {
      const parsed = inputSchema.safeParse(input);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: z.prettifyError(parsed.error) };
    },
    async call(input, context) {
      return toToolOutput(await callback(input as z.output<S>, context));
    },
  };
  if (annotations) (fn as { annotations?: ToolAnnotations }).annotations = annotations;
  return fn;
}

/** Stamps a tool output with the call's id. */
export function toResultBlock(toolUseId: string, output: ToolOutput): ToolResultBlock {
  const block: ToolResultBlock = { type: "toolResult", toolUseId, status: output.status, content: output.content };
  if (output.structuredContent !== undefined) block.structuredContent = output.structuredContent;
  return block;
}

/** An error result with one text part. */
export function errorResult(toolUseId: string, text: string): ToolResultBlock {
  return { type: "toolResult", toolUseId, status: "error", content: [{ type: "text", text }] };
}
