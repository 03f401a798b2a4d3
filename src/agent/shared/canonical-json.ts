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
  // Strings and numbers without JSON.stringify, whose call cost more than the rest of a small
  // value: a string with nothing to escape is itself in quotes, a finite number its ToString.
  if (typeof value === "string") return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? `${value}` : "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  // Loops and one string instead of map/join/template per level: the audit trail hashes several
  // entries per approved call, and this was most of their cost. The text is the same as before.
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      if (i in value) out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  const n = keys.length;
  // A few keys (most arguments) are sorted here: `sort()`'s call cost more than the rest of a small object.
  // The same order (code units); many keys go to `sort()`, since this is quadratic.
  if (n > 8) keys.sort();
  else
    for (let i = 1, j: number, key: string; i < n; i++) {
      for (key = keys[i] as string, j = i; j > 0 && (keys[j - 1] as string) > key; j--) keys[j] = keys[j - 1] as string;
      keys[j] = key;
    }
  let out = "{";
  for (let i = 0; i < n; i++) {
    const key = keys[i] as string;
    if (i > 0) out += ",";
    out += `${canonicalJson(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`;
  }
  return `${out}}`;
}

/** Text JSON.stringify writes as it is, in quotes: no quote, backslash, control character or surrogate. */
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
