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
  if (keys.length > 1) keys.sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (i > 0) out += ",";
    out += `${PLAIN_KEY.test(key) ? `"${key}"` : JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`;
  }
  return `${out}}`;
}

/** Keys JSON.stringify writes as they are, in quotes (no escapes needed). */
const PLAIN_KEY = /^[A-Za-z0-9_$.:-]*$/;
