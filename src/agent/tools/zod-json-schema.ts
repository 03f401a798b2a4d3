/**
 * The JSON Schema a model reads for a zod 4 schema that cannot describe itself (zod mini, and zod
 * 3.25's `zod/v4`), read from the schema's own definition. zod's `toJSONSchema` covers every corner of
 * zod and weighs about 20 KB minified (a fifth of an app's typical slice); a tool's input needs the
 * common shapes, constraints and descriptions. Validation never depends on this: the tool's own schema
 * checks every call, so a part written here as `{}` (dates, transforms, recursion) only tells the model
 * less. zod 4 classic schemas carry `~standard.jsonSchema` and use zod's converter instead.
 *
 * @module
 */
import { globalRegistry } from "zod/v4/core";

/** What this reads of a zod 4 schema (`_zod` is zod's documented surface for libraries). */
interface ZodLike {
  _zod: {
    def: Record<string, unknown> & { type: string };
    bag?: Record<string, unknown>;
    optin?: "optional";
    values?: Set<unknown>;
    pattern?: RegExp;
  };
}

type Json = Record<string, unknown>;

/** zod format names that JSON Schema spells differently; the others are the same word. */
const FORMATS: Record<string, string> = { guid: "uuid", url: "uri", datetime: "date-time" };
/** The range each zod number format implies (zod 3.25 puts it in `_zod.bag`; 4.x leaves it to the converter). */
const NUMBER_RANGES: Record<string, [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
};
const JSON_FORMATS = new Set([
  "email",
  "uri",
  "uuid",
  "date-time",
  "date",
  "time",
  "duration",
  "ipv4",
  "ipv6",
  "hostname",
]);

/**
 * The JSON Schema (draft 2020-12 subset, input side) of a zod 4 schema.
 * @param schema - Any zod 4 schema (classic or mini, zod 3.25's `zod/v4` or zod 4.x).
 * @returns The JSON Schema; parts JSON Schema cannot express are `{}`.
 */
export function zodJsonSchema(schema: unknown): Json {
  return convert(schema as ZodLike, new Set());
}

function convert(schema: ZodLike, path: Set<ZodLike>): Json {
  if (path.has(schema)) return {}; // recursion (z.lazy): the model reads "anything" from here down
  path.add(schema);
  const json = { ...body(schema, path), ...metadata(schema) };
  path.delete(schema);
  return json;
}

/** zod 4.x keeps one registry for every copy on `globalThis`; zod 3.25's is per copy (ours, when deduped). */
function registry(): { get(schema: unknown): unknown } {
  return (
    (globalThis as { __zod_globalRegistry?: { get(schema: unknown): unknown } }).__zod_globalRegistry ?? globalRegistry
  );
}

function metadata(schema: ZodLike): Json {
  const meta = (registry().get(schema) ??
    (registry() === globalRegistry ? undefined : globalRegistry.get(schema as never))) as Json | undefined;
  if (!meta) return {};
  const { id: _id, ...rest } = meta;
  return rest;
}

function body(schema: ZodLike, path: Set<ZodLike>): Json {
  const def = schema._zod.def;
  const bag = constraints(schema);
  const inner = (key: string) => convert(def[key] as ZodLike, path);
  switch (def.type) {
    case "string":
      return stringSchema(bag);
    case "number":
      return numberSchema(bag);
    case "boolean":
    case "null":
      return { type: def.type };
    case "never":
      return { not: {} };
    case "template_literal":
      return schema._zod.pattern ? { type: "string", pattern: schema._zod.pattern.source } : { type: "string" };
    case "literal":
    case "enum":
      return valuesSchema([...(schema._zod.values ?? [])]);
    case "array":
      return withBounds({ type: "array", items: inner("element") }, bag, "minItems", "maxItems");
    case "tuple":
      return tupleSchema(def, path);
    case "object":
      return objectSchema(def, path);
    case "record":
      return { type: "object", additionalProperties: inner("valueType") };
    case "union":
      return { anyOf: (def.options as ZodLike[]).map((o) => convert(o, path)) };
    case "intersection":
      return { allOf: [inner("left"), inner("right")] };
    case "nullable":
      return { anyOf: [inner("innerType"), { type: "null" }] };
    case "default":
      return { ...inner("innerType"), ...jsonDefault(def.defaultValue) };
    case "optional":
    case "nonoptional":
    case "readonly":
    case "catch":
    case "prefault":
    case "promise":
      return inner("innerType");
    case "pipe":
      return inner("in"); // the input side: what the model must send
    case "lazy":
      return convert((def.getter as () => ZodLike)(), path);
    default:
      return {}; // any, unknown, date, bigint, transform, custom, …: not expressible, so "anything"
  }
}

interface CheckDef {
  check?: string;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
}

/**
 * The schema's constraints, from its checks (zod 4.x keeps them there; a format schema such as
 * `z.email()` is its own first check) and from `_zod.bag` (where zod 3.25 folds them).
 */
function constraints(schema: ZodLike): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema._zod.bag };
  const def = schema._zod.def as CheckDef & { checks?: { _zod: { def: CheckDef } }[] };
  const patterns = new Set<RegExp>((out.patterns as Set<RegExp> | undefined) ?? []);
  const narrow = (key: string, value: number | undefined, tighter: (a: number, b: number) => boolean) => {
    if (typeof value === "number" && (typeof out[key] !== "number" || tighter(value, out[key] as number)))
      out[key] = value;
  };
  for (const check of [...(def.check ? [def] : []), ...(def.checks ?? []).map((c) => c._zod.def)]) {
    const c = check as CheckDef;
    if (c.check === "min_length" || c.check === "length_equals")
      narrow("minimum", c.minimum ?? c.length, (a, b) => a > b);
    if (c.check === "max_length" || c.check === "length_equals")
      narrow("maximum", c.maximum ?? c.length, (a, b) => a < b);
    if (c.check === "greater_than") narrow(c.inclusive ? "minimum" : "exclusiveMinimum", c.value, (a, b) => a > b);
    if (c.check === "less_than") narrow(c.inclusive ? "maximum" : "exclusiveMaximum", c.value, (a, b) => a < b);
    if (c.check === "multiple_of") out.multipleOf = c.value;
    if (c.check === "number_format" || c.check === "string_format") out.format ??= c.format;
    const range = c.check === "number_format" ? NUMBER_RANGES[c.format ?? ""] : undefined;
    if (range) {
      narrow("minimum", range[0], (a, b) => a > b);
      narrow("maximum", range[1], (a, b) => a < b);
    }
    if (c.check === "string_format" && c.pattern instanceof RegExp) patterns.add(c.pattern);
  }
  out.patterns = patterns;
  return out;
}

function stringSchema(bag: Record<string, unknown>): Json {
  const json = withBounds({ type: "string" }, bag, "minLength", "maxLength");
  const format = typeof bag.format === "string" ? (FORMATS[bag.format] ?? bag.format) : undefined;
  if (format && JSON_FORMATS.has(format)) json.format = format;
  const patterns = [...((bag.patterns as Set<RegExp> | undefined) ?? [])];
  if (patterns.length === 1) json.pattern = patterns[0]!.source;
  else if (patterns.length > 1) json.allOf = patterns.map((p) => ({ pattern: p.source }));
  return json;
}

function numberSchema(bag: Record<string, unknown>): Json {
  const integer = typeof bag.format === "string" && /int/.test(bag.format);
  const json: Json = { type: integer ? "integer" : "number" };
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
    const value = bag[key];
    if (typeof value === "number" && Number.isFinite(value)) json[key] = value;
  }
  return json;
}

function withBounds(json: Json, bag: Record<string, unknown>, min: string, max: string): Json {
  if (typeof bag.minimum === "number") json[min] = bag.minimum;
  if (typeof bag.maximum === "number") json[max] = bag.maximum;
  return json;
}

function valuesSchema(values: unknown[]): Json {
  const json = values.filter((v) => v === null || ["string", "number", "boolean"].includes(typeof v));
  const types = new Set(json.map((v) => (v === null ? "null" : typeof v)));
  const out: Json = types.size === 1 ? { type: [...types][0] } : {};
  if (json.length === 1) out.const = json[0];
  else out.enum = json;
  return out;
}

function tupleSchema(def: Record<string, unknown>, path: Set<ZodLike>): Json {
  const json: Json = { type: "array", prefixItems: (def.items as ZodLike[]).map((i) => convert(i, path)) };
  json.items = def.rest ? convert(def.rest as ZodLike, path) : false;
  return json;
}

function objectSchema(def: Record<string, unknown>, path: Set<ZodLike>): Json {
  const shape = def.shape as Record<string, ZodLike>;
  const properties: Json = {};
  const required: string[] = [];
  for (const key of Object.keys(shape)) {
    // defineProperty, so a key named "__proto__" stays a property name.
    Object.defineProperty(properties, key, {
      value: convert(shape[key]!, path),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    // A field with a default may be left out of the input (zod 4.x says so too; 3.25 lists it as required).
    const { optin, def: fieldDef } = shape[key]!._zod;
    if (optin !== "optional" && fieldDef.type !== "default" && fieldDef.type !== "prefault") required.push(key);
  }
  const json: Json = { type: "object", properties };
  if (required.length) json.required = required;
  const catchall = def.catchall as ZodLike | undefined;
  if (catchall) json.additionalProperties = catchall._zod.def.type === "never" ? false : convert(catchall, path);
  return json;
}

function jsonDefault(value: unknown): Json {
  try {
    return value === undefined ? {} : { default: JSON.parse(JSON.stringify(value)) };
  } catch {
    return {};
  }
}
