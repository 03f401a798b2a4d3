/**
 * The usual run input, checked without walking the AG-UI schema: a new turn of plain text messages,
 * with plain tools and context. Anything else (a resume, content parts, tool calls, a key the check
 * does not know) is left to `RunAgentInputSchema`, so what this accepts is what the schema accepts,
 * and it gives what the schema gives (test/agui/edge/run-input.property.test.ts holds them equal).
 *
 * Why not the schema for every body (a departure from "zod at the boundary", for this one shape): on
 * Workers the schema's walk of even a small body costs about 0.1 ms of a Durable Object's time before
 * a hosted run's first byte (most of it its code and objects coming back into the CPU's caches), a
 * sixth of the object's whole part; this check touches a few properties.
 *
 * @module
 */
import type { RunAgentInput } from "@ag-ui/core";
import { isObject } from "../../../agent/shared/guards.js";

const TOP = new Set(["threadId", "runId", "messages", "tools", "context", "state", "forwardedProps", "parentRunId"]);
const MESSAGE = new Set(["id", "role", "content", "name"]);
const ROLES = new Set(["user", "system", "developer", "assistant"]);
const TOOL = new Set(["name", "description", "parameters"]);
const CONTEXT = new Set(["description", "value"]);

/**
 * The body as a `RunAgentInput` when it has the usual shape (see the module), else `undefined`.
 *
 * @param body - The parsed JSON body (untrusted).
 * @returns What `RunAgentInputSchema` would give for it, or `undefined`: ask the schema.
 */
export function plainRunInput(body: unknown): RunAgentInput | undefined {
  if (!plainObject(body, TOP) || typeof body.threadId !== "string" || typeof body.runId !== "string") return undefined;
  if (!optionalString(body.parentRunId)) return undefined;
  // The schema refuses a null state or forwardedProps (it turns a null state into none): asked.
  if (body.state === null || body.forwardedProps === null) return undefined;
  if (!Array.isArray(body.messages) || !body.messages.every(plainMessage)) return undefined;
  const { tools = [], context = [] } = body;
  if (!Array.isArray(tools) || !tools.every(plainTool)) return undefined;
  if (!Array.isArray(context) || !context.every(plainContext)) return undefined;
  return { ...body, tools, context } as unknown as RunAgentInput;
}

function plainObject(value: unknown, keys: ReadonlySet<string>): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  for (const key in value) if (!keys.has(key)) return false;
  return Object.getPrototypeOf(value) === Object.prototype;
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

function plainMessage(m: unknown): boolean {
  if (!plainObject(m, MESSAGE) || typeof m.id !== "string" || !ROLES.has(m.role as string)) return false;
  const content = m.role === "assistant" ? optionalString(m.content) : typeof m.content === "string";
  return content && optionalString(m.name);
}

function plainTool(t: unknown): boolean {
  return (
    plainObject(t, TOOL) && typeof t.name === "string" && typeof t.description === "string" && t.parameters !== null
  );
}

function plainContext(c: unknown): boolean {
  return plainObject(c, CONTEXT) && typeof c.description === "string" && typeof c.value === "string";
}
