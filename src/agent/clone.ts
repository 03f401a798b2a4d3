/**
 * A deep copy of a tool call for its BeforeToolCall hooks, without `structuredClone`'s serialize and
 * deserialize round trip for the plain JSON a call's input almost always is. A leaf module.
 *
 * @module
 */

/** Thrown inside {@link cloneCall} when a value is not plain data: the copy is left to `structuredClone`. */
const NOT_PLAIN = Symbol("not plain");

/**
 * `structuredClone(value)`, done by hand for plain data (strings, numbers, booleans, null, undefined,
 * bigints, arrays without holes or extra keys, and objects whose prototype is `Object.prototype`);
 * anything else (a Date, a Map, a typed array, an object with another prototype) is copied by
 * `structuredClone` itself. Shared references and cycles are kept as `structuredClone` keeps them.
 *
 * @param value - The value to copy (not modified).
 * @returns The copy.
 * @example
 * ```ts
 * const copy = cloneCall({ type: "toolUse", toolUseId: "c1", name: "echo", input: { text: "hi" } });
 * ```
 */
export function cloneCall<T>(value: T): T {
  try {
    return copy(value, undefined) as T;
  } catch (e) {
    if (e === NOT_PLAIN) return structuredClone(value);
    throw e;
  }
}

function copy(value: unknown, seen: Map<object, unknown> | undefined): unknown {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "function" || typeof value === "symbol") throw NOT_PLAIN;
    return value;
  }
  const known = seen?.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || Object.keys(value).length !== value.length) throw NOT_PLAIN;
    const out: unknown[] = new Array(value.length);
    const map = seen ?? new Map<object, unknown>();
    map.set(value, out);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], map);
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) throw NOT_PLAIN;
  const out: Record<string, unknown> = {};
  const map = seen ?? new Map<object, unknown>();
  map.set(value, out);
  for (const key of Object.keys(value)) {
    const v = copy((value as Record<string, unknown>)[key], map);
    // An own "__proto__" key (JSON.parse makes one) stays a key; assigning it would set the prototype.
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}
