/**
 * One depth bound for every reader of snapshots and wire state: recursive schemas (and
 * `JSON.stringify`) overflow the stack on hostile nesting, so input is measured first, without recursion.
 *
 * @module
 */
import { InvalidStateError } from "../errors.js";

/** Deepest nesting a snapshot may have (objects and arrays). Far beyond any real paused run. */
export const MAX_SNAPSHOT_DEPTH = 128;

/**
 * Whether `value` nests at most `maxDepth` levels of objects/arrays. Iterative, so hostile input
 * cannot overflow the stack; shared or cyclic references simply count as deep.
 * @param value - Any value.
 * @param maxDepth - Default {@link MAX_SNAPSHOT_DEPTH}.
 */
export function withinDepth(value: unknown, maxDepth: number = MAX_SNAPSHOT_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  let budget = 1_000_000;
  while (stack.length) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") continue;
    if (depth >= maxDepth || --budget < 0) return false;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return true;
}

/**
 * Throws when `value` nests deeper than the bound.
 * @param value - Untrusted input.
 * @param what - Named in the error, e.g. `"interrupt state"`.
 * @param maxDepth - Default {@link MAX_SNAPSHOT_DEPTH}.
 * @throws InvalidStateError
 */
export function assertDepth(value: unknown, what: string, maxDepth: number = MAX_SNAPSHOT_DEPTH): void {
  if (!withinDepth(value, maxDepth))
    throw new InvalidStateError(`Malformed ${what}: nested deeper than ${maxDepth} levels.`);
}
