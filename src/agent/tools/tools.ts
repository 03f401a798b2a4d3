/**
 * Tools: the `AgentTool` interface the runner calls, and `tool()`, which builds
 * one from any Standard Schema (zod, valibot, arktype, …) or a plain JSON Schema, and a callback.
 *
 * @module
 */
import { ToolDefinitionError } from "../../errors.js";
import { positiveIntegerOption } from "../../options.js";
import type { ToolSpec } from "../model.js";
import type { Agent } from "../agent.js";
import type { InvocationState } from "../events.js";
import type { InterruptRequest } from "../interrupts/interrupt.js";
import type { JsonObject, JsonValue, ToolResultBlock, ToolResultContent, ToolUseBlock } from "../messages/messages.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import { withinDepth } from "../shared/json-depth.js";
import { capToolResult, DEFAULT_MAX_RESULT_DEPTH } from "./result-cap.js";
import { toolSpec, validateWith } from "./tool-schema.js";

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
  /**
   * Aborted when the run is cancelled, when the call's deadline passes (its reason a `ToolTimeoutError`),
   * or at the edge when the run is stopped while the call executes.
   */
  readonly signal: AbortSignal;
  /**
   * Stable for this call across retries, resumes and reloads (`kw1-` + SHA-256 of thread, call id and
   * the arguments the model called with, edits aside; see `executionKey`): pass it on to an API that deduplicates, e.g. as a
   * payment API's `Idempotency-Key` header.
   */
  readonly idempotencyKey: string;
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
  /**
   * Name, description and JSON Schema, as sent to the model. From `tool()` with a zod mini (or zod 3.25
   * `zod/v4`) schema, its `inputSchema` is derived at the agent's first run (or `agent.prepareTools()`);
   * read before that, it throws a ToolDefinitionError.
   */
  readonly spec: ToolSpec;
  readonly annotations?: ToolAnnotations;
  /** `function` (default), `client` (runs in the browser host), `mcp`, or `agent` (a delegate). */
  readonly kind?: "function" | "client" | "mcp" | "agent";
  /** Checks (and may coerce) the input before `call`; absent means any JSON object is accepted. */
  validate?(input: unknown): ValidationResult | Promise<ValidationResult>;
  /** Runs the tool. Throwing produces an error result the model reads. */
  call(input: unknown, context: ToolContext): Promise<ToolOutput>;
  /** Characters of text (and JSON) of one result the model is sent; the rest is cut with a note. Default 100 000. */
  readonly maxResultChars?: number;
  /** Bytes of images and documents one result may carry; later ones are dropped with a note. Default 4 MiB. */
  readonly maxResultMediaBytes?: number;
  /** Deadline of one call, in ms (see `AgentConfig.toolTimeoutMs`). Default: the agent's. */
  readonly timeoutMs?: number;
}

/** Options of {@link tool} with a schema from any library that implements Standard Schema v1. */
export interface ToolOptions<S extends StandardSchemaV1, R> {
  /** Unique among the agent's tools; letters, digits, `_` and `-`. */
  name: string;
  description: string;
  /**
   * Input schema: validates the input, and the callback gets its parsed value. The model gets its
   * JSON Schema: zod's (3.25 `zod/v4`, 4.x classic or mini), the Standard JSON Schema interface
   * (arktype, zod ≥ 4.2, valibot wrapped in `toStandardJsonSchema`), or `jsonSchema` when given.
   */
  inputSchema: S;
  /** The JSON Schema sent to the model, instead of the one derived from `inputSchema`. Default: derived. */
  jsonSchema?: JsonObject;
  /** Runs the tool; a string becomes text, `ToolOutput` passes through, anything else becomes a JSON part. */
  callback: (input: StandardSchemaV1.InferOutput<S>, context: ToolContext) => R | Promise<R>;
  annotations?: ToolAnnotations;
  /**
   * Deadline of one call, in ms: past it `context.signal` aborts with a `ToolTimeoutError`, and a
   * callback that has not settled within the agent's `toolGraceMs` after that is abandoned. Default:
   * the agent's `toolTimeoutMs` (5 minutes).
   */
  timeoutMs?: number;
}

/**
 * Options of {@link tool} with a plain JSON Schema and no schema library. The input is only checked
 * to be a JSON object (the model was asked for the schema); `I` types it for the callback.
 */
export interface JsonSchemaToolOptions<I extends JsonObject, R> {
  /** Unique among the agent's tools; letters, digits, `_` and `-`. */
  name: string;
  description: string;
  /** The input's JSON Schema (`type: "object"`), sent to the model as is. */
  jsonSchema: JsonObject;
  inputSchema?: undefined;
  /** Runs the tool; a string becomes text, `ToolOutput` passes through, anything else becomes a JSON part. */
  callback: (input: I, context: ToolContext) => R | Promise<R>;
  annotations?: ToolAnnotations;
  /** Deadline of one call, in ms (see {@link ToolOptions.timeoutMs}). Default: the agent's `toolTimeoutMs`. */
  timeoutMs?: number;
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
  // Measured first (without recursion): JSON.stringify overflows the stack on a hostile depth, and a
  // call that ran must not turn into an error because its return value could not be copied.
  try {
    if (!withinDepth(value, DEFAULT_MAX_RESULT_DEPTH)) {
      const text = `[the result was nested deeper than ${DEFAULT_MAX_RESULT_DEPTH} levels and was dropped]`;
      return { status: "success", content: [{ type: "text", text }] };
    }
    return { status: "success", content: [{ type: "json", json: toJson(value) }] };
  } catch {
    // A BigInt, a getter or toJSON that throws: the call ran, so it is not an error of the call.
    const text = "[the result could not be written as JSON and was dropped]";
    return { status: "success", content: [{ type: "text", text }] };
  }
}

function isToolOutput(value: unknown): value is ToolOutput {
  const v = value as Partial<ToolOutput> | null;
  return (
    typeof v === "object" && v !== null && (v.status === "success" || v.status === "error") && Array.isArray(v.content)
  );
}

function toJson(value: unknown): JsonValue {
  // Drops functions/undefined and turns Dates into strings, as JSON would on the wire.
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

/**
 * Builds a tool from a schema (any Standard Schema library, or plain JSON Schema) and a callback.
 * Input is validated before the callback runs; invalid input becomes an error result that names the
 * problems one per line (`- city: Expected string`), the same whichever library found them.
 *
 * @param options - See {@link ToolOptions} and {@link JsonSchemaToolOptions}.
 * @returns An {@link AgentTool}.
 * @throws {ToolDefinitionError} On a bad name, or a schema that is not an object or has no JSON Schema. A zod
 *   schema without a JSON Schema of its own (zod mini, zod 3.25's `zod/v4`) is converted at the agent's first
 *   run (the converter loads then, not with the page): one whose JSON Schema turns out not to be an object
 *   fails that run (and `agent.prepareTools()`) with this error, before any hook or model call.
 * @example
 * ```ts
 * import * as z from "zod/v4"; // or "zod", "zod/mini", valibot, arktype
 * const weather = tool({
 *   name: "get_weather",
 *   description: "Current weather for a city.",
 *   inputSchema: z.object({ city: z.string() }),
 *   annotations: { readOnlyHint: true },
 *   callback: async ({ city }) => ({ city, tempC: 21 }),
 * });
 * ```
 */
export function tool<S extends StandardSchemaV1, R>(options: ToolOptions<S, R>): AgentTool;
export function tool<I extends JsonObject = JsonObject, R = unknown>(options: JsonSchemaToolOptions<I, R>): AgentTool;
export function tool(
  options: ToolOptions<StandardSchemaV1, unknown> | JsonSchemaToolOptions<JsonObject, unknown>,
): AgentTool {
  const { name, description, inputSchema, jsonSchema, callback, annotations, timeoutMs } = options;
  if (!NAME.test(name)) throw new ToolDefinitionError(`Tool name "${name}" must match ${NAME}.`);
  const fn: AgentTool = {
    name,
    spec: toolSpec(name, description, inputSchema, jsonSchema),
    kind: "function",
    validate: inputSchema ? (input) => validateWith(inputSchema, input) : isObjectInput,
    async call(input, context) {
      return toToolOutput(await callback(input as JsonObject, context));
    },
  };
  if (annotations) (fn as { annotations?: ToolAnnotations }).annotations = annotations;
  if (timeoutMs !== undefined)
    (fn as { timeoutMs?: number }).timeoutMs = positiveIntegerOption("timeoutMs", timeoutMs, 1);
  return fn;
}

function isObjectInput(input: unknown): ValidationResult {
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? { ok: true, value: input }
    : { ok: false, error: "- The input must be a JSON object." };
}

/**
 * An error result with one text part, capped like every result (an error message can be huge).
 * @param toolUseId - The call's id.
 * @param text - What the model reads.
 * @returns The result block.
 */
export function errorResult(toolUseId: string, text: string): ToolResultBlock {
  return capToolResult({ type: "toolResult", toolUseId, status: "error", content: [{ type: "text", text }] });
}
