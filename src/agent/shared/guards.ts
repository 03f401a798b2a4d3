/**
 * Type guards every layer shares.
 *
 * @module
 */

/**
 * Whether a value is a JSON-style object: not `null`, not an array (class instances count; use a
 * prototype check where only plain objects may pass).
 * @typeParam T - What its values are taken to be. Default `unknown`.
 * @param value - Anything (untrusted).
 * @returns `true` for `{…}`-like values.
 * @example
 * ```ts
 * if (isObject(input.state)) state = { ...input.state };
 * ```
 */
export function isObject<T = unknown>(value: unknown): value is Record<string, T> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
