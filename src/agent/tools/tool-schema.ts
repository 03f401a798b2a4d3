/**
 * What `tool()` needs from a schema library, through Standard Schema only: the JSON Schema the model
 * reads, and validation whose problems read the same whichever library found them.
 *
 * @module
 */
import { ToolDefinitionError } from "../../errors.js";
import type { JsonObject } from "../messages/messages.js";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "./standard-schema.js";
import type { ValidationResult } from "./tools.js";
import { formatIssues } from "./issues.js";
import type { ToolSpec } from "../model.js";

/** zod's definition, as far as the check below reads it (`_zod` is zod's documented surface for libraries). */
type ZodLike = { _zod: { def: { type: string } } };
type Json = Record<string, unknown>;

/** zod schema kinds whose JSON Schema may be an object (the wrappers are checked again once converted). */
const OBJECTISH = new Set([
  "object",
  "record",
  "optional",
  "nonoptional",
  "readonly",
  "catch",
  "prefault",
  "default",
  "promise",
  "pipe",
  "lazy",
]);

/** The converter for zod schemas without a JSON Schema of their own, once loaded. */
let convert: ((schema: unknown) => Json) | undefined;

/**
 * A tool's spec: the JSON Schema of its input from (in order) an explicit schema, the Standard JSON Schema
 * interface (zod 4 classic, arktype, valibot through `toStandardJsonSchema`), or the schema's zod 4
 * definition (zod mini, zod 3.25's `zod/v4`). That last one is converted on demand: the converter (4 KB
 * minified) is the runner's: it loads with the agent's first run ({@link prepareSpecs}), not with the page.
 * @throws {ToolDefinitionError} When the schema gives no object schema (a zod one: see {@link prepareSpecs}).
 */
export function toolSpec(
  name: string,
  description: string,
  schema: StandardSchemaV1 | undefined,
  explicit: JsonObject | undefined,
): ToolSpec {
  let json: Record<string, unknown> | undefined;
  try {
    json = explicit ?? fromSchema(name, schema);
  } catch (error) {
    throw definitionError(name, error);
  }
  if (json !== undefined) return { name, description, inputSchema: objectSchema(name, () => json) };
  if (!OBJECTISH.has((schema as unknown as ZodLike)._zod.def.type))
    throw new ToolDefinitionError(`Tool "${name}": the input schema must be an object.`);
  let derived: JsonObject | undefined;
  const spec: ToolSpec = {
    name,
    description,
    get inputSchema(): JsonObject {
      if (convert === undefined)
        throw new ToolDefinitionError(
          `Tool "${name}": the JSON Schema of its zod schema is derived when the agent first runs; await agent.prepareTools() to read it sooner.`,
        );
      const zod = convert;
      // Kept once derived; a schema that fails to convert throws again at each read (each run).
      derived ??= objectSchema(name, () => zod(schema));
      return derived;
    },
  };
  return spec;
}

/**
 * Derives the JSON Schema of every spec that waits for the zod converter.
 * @param specs - The agent's tool specs; those that need no converter are left alone.
 * @param converter - The converter, from the runner's chunk (it loads with the agent's first run).
 * @throws {ToolDefinitionError} For a schema that gives no object schema (the spec keeps waiting).
 */
export function prepareSpecs(specs: readonly ToolSpec[], converter: (schema: unknown) => Json): void {
  convert ??= converter;
  // A spec's own schema reads as it is; one derived on demand is derived now, or throws its ToolDefinitionError.
  for (const spec of specs) void spec.inputSchema;
}

function objectSchema(name: string, derive: () => Record<string, unknown>): JsonObject {
  let json: JsonObject;
  try {
    json = structuredClone(derive()) as JsonObject;
  } catch (error) {
    throw definitionError(name, error);
  }
  delete json.$schema;
  if (json.type !== "object") throw new ToolDefinitionError(`Tool "${name}": the input schema must be an object.`);
  return json;
}

function definitionError(name: string, error: unknown): ToolDefinitionError {
  if (error instanceof ToolDefinitionError) return error;
  return new ToolDefinitionError(`Tool "${name}": its input schema cannot be expressed as JSON Schema.`, {
    cause: error,
  });
}

/** The schema's own JSON Schema; `undefined` for a zod 4 schema that needs the converter. */
function fromSchema(name: string, schema: StandardSchemaV1 | undefined): Record<string, unknown> | undefined {
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
  if ("_zod" in schema) return undefined;
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
