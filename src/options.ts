/**
 * Checks of caller-supplied options, shared by every entry so a bad option is the same
 * {@link UserError} everywhere.
 *
 * @module
 */
import { UserError } from "./errors.js";

/**
 * A positive integer option, or its default.
 * @param name - The option's name, as the caller wrote it (for the message).
 * @param value - What the caller passed (`undefined` takes the default).
 * @param fallback - The default.
 * @returns The value to use.
 * @throws UserError when the value is not a positive integer (`NaN`, `0`, `-1`, `1.5`, `Infinity`).
 */
export function positiveIntegerOption(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new UserError(`${name} must be a positive integer, got ${v}.`);
  return v;
}
