/**
 * Canonical JSON: one text per value, so values can be compared and hashed. A leaf module, so the
 * interrupt state can use it without importing the hooks.
 *
 * @module
 */

/**
 * JSON with object keys sorted, so equal values give equal text.
 * @param value - A JSON value.
 * @returns Its canonical text.
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true] }); // '{"a":[true],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
}
