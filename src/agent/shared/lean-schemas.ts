/**
 * zod schemas the package's validators share, built from the smallest parts of zod that check the
 * same thing. A zod feature costs bytes in every app that loads this package once any schema uses
 * it: zod's record type (enum, literal, numeric and symbol keys) weighs about 0.5 KiB min+gzip and
 * its length checks about 0.4 KiB, where string keys and string lengths need a few lines. What is
 * accepted, refused and produced is zod's own (test/agent/lean-schemas*.test.ts holds them to it).
 *
 * @module
 */
import * as z from "zod/v4/mini";

/**
 * A plain object as zod's record type tells one: an object (not an array) whose `constructor` is
 * absent, not a function, or one whose prototype has its own `isPrototypeOf` (Object's, in any realm).
 * A Date, a Map or a class instance is not one.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const ctor = (value as { constructor?: unknown }).constructor;
  if (typeof ctor !== "function") return true;
  const proto: unknown = ctor.prototype;
  return typeof proto === "object" && proto !== null && Object.hasOwn(proto, "isPrototypeOf");
}

/**
 * An object with string keys whose values all pass `value`, as `z.record(z.string(), value)` checks
 * it: anything but a plain object is refused; a `__proto__` key is dropped from the output, as zod does;
 * issues sit at the same paths with zod mini's messages.
 * @param value - The schema of every value.
 * @returns The schema; its output is a new object.
 * @example
 * ```ts
 * const meta = recordOf(jsonValueSchema);
 * ```
 */
export function recordOf<O, I>(value: z.ZodMiniType<O, I>): z.ZodMiniType<Record<string, O>, Record<string, I>> {
  return z.pipe(
    z.pipe(z.custom<Record<string, I>>(isPlainObject), z.transform(withoutProtoKey)),
    z.catchall(z.object({}), value),
  );
}

// zod 3.25's catchall reads an own `__proto__` key (JSON.parse makes one) and assigns it into its
// output, which replaces the output's prototype; its record type and zod 4 skip the key, so it is
// dropped here first.
function withoutProtoKey<T extends Record<string, unknown>>(input: T): T {
  if (!Object.hasOwn(input, "__proto__")) return input;
  const { ["__proto__"]: _dropped, ...rest } = input;
  return rest as T;
}

/**
 * A string of `min` to `max` characters (UTF-16 code units), as `z.string().check(z.minLength(min),
 * z.maxLength(max))` checks it (zod mini's message for either is "Invalid input", as here).
 * @param min - Fewest characters. Default 0.
 * @param max - Most characters. Default: no bound.
 * @returns The schema.
 * @example
 * ```ts
 * const id = sizedString(1, 1024);
 * ```
 */
export function sizedString(min = 0, max = Number.POSITIVE_INFINITY): z.ZodMiniString<string> {
  let schema = z.string();
  if (min > 0) schema = schema.check(z.refine((s) => s.length >= min));
  if (max < Number.POSITIVE_INFINITY) schema = schema.check(z.refine((s) => s.length <= max));
  return schema;
}

// Refused, not repaired: zod 3.25's object with a catchall has already assigned the key, so the
// output's prototype is the sender's object and every field the shape checks may be read from it unchecked.
const ownPrototype = z.refine((out: unknown) => Object.getPrototypeOf(out) === Object.prototype, {
  error: 'An object may not hold a "__proto__" key.',
});

/**
 * `z.looseObject(shape)` that refuses an own `__proto__` key. zod 3.25's loose object (what apps with
 * `@ag-ui/client` 1.x resolve) copies unknown keys by assignment, so `{"__proto__": {…}}` from
 * `JSON.parse` became the output's prototype: the shape's fields then read the sender's values,
 * never checked (`{"__proto__":{"scope":"forever"}}` parsed, and `.scope` was "forever"). Here such
 * an object is refused under zod 3.25; zod 4 drops the key itself, and the rest of the object is read.
 * Still an object schema (usable in `z.discriminatedUnion`).
 * @param shape - The known keys' schemas.
 * @returns The schema.
 * @example
 * ```ts
 * const answer = looseObject({ approved: z.optional(z.boolean()) });
 * ```
 */
export function looseObject<S extends z.core.$ZodLooseShape>(shape: S): z.ZodMiniObject<S, z.core.$loose> {
  return z.looseObject(shape).check(ownPrototype);
}
