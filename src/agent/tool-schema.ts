/**
 * What `tool()` needs from a schema library, through Standard Schema only: the JSON Schema the model
 * reads, and validation whose problems read the same whichever library found them.
 *
 * @module
 */
import { ToolDefinitionError } from "../errors.js";
import type { JsonObject } from "./messages.js";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "./standard-schema.js";
import type { ValidationResult } from "./tools.js";
import { zodJsonSchema } from "./zod-json-schema.js";

/**
 * The JSON Schema of a tool's input, from (in order) an explicit schema, the Standard JSON Schema interface
 * (zod 4 classic, arktype, valibot through `toStandardJsonSchema`), or the schema's zod 4 definition (zod mini,
 * zod 3.25's `zod/v4`).
 * @throws {ToolDefinitionError} When none of them gives an object schema.
 */
export function inputJsonSchema(
  name: string,
  schema: StandardSchemaV1 | undefined,
  explicit: JsonObject | undefined,
): JsonObject {
  let json: JsonObject;
  try {
    json = structuredClone(explicit ?? fromSchema(name, schema)) as JsonObject;
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw error;
    throw new ToolDefinitionError(`Tool "${name}": its input schema cannot be expressed as JSON Schema.`, {
      cause: error,
    });
  }
  delete json.$schema;
  if (json.type !== "object") throw new ToolDefinitionError(`Tool "${name}": the input schema must be an object.`);
  return json;
}

function fromSchema(name: string, schema: StandardSchemaV1 | undefined): Record<string, unknown> {
  if (schema === undefined) throw new ToolDefinitionError(`Tool "${name}": give an inputSchema or a jsonSchema.`);
  const std = schema["~standard"] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1["~standard"]>;
  if (std.jsonSchema) {
    try {
      return std.jsonSchema.input({ target: "draft-2020-12" });
    } catch (error) {
      // zod's own converter refuses what JSON Schema cannot say (a date, a transform); ours writes "anything" there.
      if (!("_zod" in schema)) throw error;
    }
  }
  // zod mini and zod 3.25's zod/v4 have no converter of their own in the schema (zod 4 classic does).
  if ("_zod" in schema) return zodJsonSchema(schema);
  if (std.vendor === "zod") {
    // zod 3's classic API (`import { z } from "zod"` on zod 3.x) validates through Standard Schema but has no `_zod`.
    throw new ToolDefinitionError(
      `Tool "${name}": this schema is from zod 3's classic API (import { z } from "zod" on zod 3), which cannot describe itself as JSON Schema. Import from "zod/v4" instead (zod 3.25 or later: import * as z from "zod/v4"), or use zod 4.`,
    );
  }
  throw new ToolDefinitionError(
    `Tool "${name}": a ${std.vendor} schema cannot describe itself as JSON Schema; pass the jsonSchema option (valibot: wrap it in toStandardJsonSchema from @valibot/to-json-schema).`,
  );
}

/**
 * Validates with any Standard Schema; problems become one line each, `- path: message`.
 * @returns The parsed value, or the readable problems.
 */
export function validateWith(schema: StandardSchemaV1, input: unknown): ValidationResult | Promise<ValidationResult> {
  const result = schema["~standard"].validate(input);
  return result instanceof Promise ? result.then(toValidation) : toValidation(result);
}

function toValidation(result: StandardSchemaV1.Result<unknown>): ValidationResult {
  return result.issues ? { ok: false, error: formatIssues(result.issues) } : { ok: true, value: result.value };
}

/**
 * One line per issue: `- items[0].name: Expected string` (`- ` alone for the root).
 * @param issues - Standard Schema issues.
 */
export function formatIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .map((issue) => {
      const where = pathText(issue.path ?? []);
      return `- ${where ? `${where}: ` : ""}${issue.message}`;
    })
    .join("\n");
}

function pathText(path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment>): string {
  let text = "";
  for (const segment of path) {
    const key = typeof segment === "object" ? segment.key : segment;
    if (typeof key === "number") text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}
