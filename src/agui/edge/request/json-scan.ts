/**
 * Reading JSON text without parsing it: where its strings end, and the values of its top-level
 * keys. A body's cost is in parsing it, so what must be known before it is bounded is found by a
 * scan of the text.
 *
 * @module
 */

/** Character codes of JSON's structure. */
export const QUOTE = 34;
export const COMMA = 44;
export const COLON = 58;
export const OPEN_ARRAY = 91;
export const CLOSE_ARRAY = 93;
export const OPEN_OBJECT = 123;
export const CLOSE_OBJECT = 125;
const BACKSLASH = 92;

/**
 * The index of the quote that closes the JSON string opened at `start`, or -1.
 * @param text - JSON text.
 * @param start - The index of the opening quote.
 */
export function stringEnd(text: string, start: number): number {
  for (let from = start + 1; ; ) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let slashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q;
    from = q + 1;
  }
}

/** Longest top-level value {@link topLevelValues} parses (a thread id is at most 512 bytes). */
const MAX_TOP_VALUE_CHARS = 4_096;

/**
 * Values of top-level keys of a JSON object text, parsed, without parsing the rest: each key's
 * last occurrence, as `JSON.parse` keeps it. A value longer than a few KiB is not parsed. One scan.
 *
 * @param text - JSON text (untrusted; malformed text gives an empty map).
 * @param keys - The top-level keys wanted (short names).
 * @returns Each key found: `{ value }` for a short value, `{}` for a longer or malformed one.
 */
export function topLevelValues(text: string, keys: readonly string[]): Map<string, { value?: unknown }> {
  const found = new Map<string, { value?: unknown }>();
  // A key may be written with escapes (`\u0074hreadId`): up to six characters a letter, and its quotes.
  const longestKey = 6 * Math.max(0, ...keys.map((k) => k.length)) + 2;
  let depth = 0;
  let expectKey = false;
  let current: unknown;
  let start = -1;
  const close = (end: number) => {
    if (typeof current === "string" && keys.includes(current)) found.set(current, parseShort(text.slice(start, end)));
    current = undefined;
    start = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return new Map();
      if (depth === 1 && expectKey) {
        current = end - i <= longestKey ? parseShort(text.slice(i, end + 1)).value : undefined;
        expectKey = false;
      }
      i = end;
    } else if (c === COLON && depth === 1 && start < 0) start = i + 1;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (depth === 1) expectKey = c === OPEN_OBJECT;
    } else if (c === COMMA && depth === 1) {
      close(i);
      expectKey = true;
    } else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) {
      close(i);
      return found;
    }
  }
  return new Map();
}

function parseShort(slice: string): { value?: unknown } {
  if (slice.length > MAX_TOP_VALUE_CHARS) return {};
  try {
    return { value: JSON.parse(slice) };
  } catch {
    return {};
  }
}
