/**
 * One depth bound for every reader of snapshots and wire state: recursive schemas (and
 * `JSON.stringify`) overflow the stack on hostile nesting, so input is measured first, without recursion.
 *
 * @module
 */
import { InvalidStateError } from "../../errors.js";

/** Deepest nesting a snapshot may have (objects and arrays). Far beyond any real paused run. */
export const MAX_SNAPSHOT_DEPTH = 128;

/**
 * Whether `value` nests at most `maxDepth` levels of objects/arrays. Iterative, so hostile input
 * cannot overflow the stack; shared or cyclic references simply count as deep.
 * @param value - Any value.
 * @param maxDepth - Default {@link MAX_SNAPSHOT_DEPTH}.
 */
export function withinDepth(value: unknown, maxDepth: number = MAX_SNAPSHOT_DEPTH): boolean {
  return deepestPart([value], [maxDepth]) === -1;
}

/**
 * One walk over several values, each with its own bound: the index of the first value found
 * nested deeper than its bound, or `-1`. Iterative, and allocation-free per node (two parallel
 * stacks, keys read with `for…in`), so a wide object costs one pass and no copy of its values.
 * Past a million containers the walk stops and reports the value it was in (a cycle ends there too).
 * @param values - The values.
 * @param maxDepths - The bound of each value (levels of objects/arrays).
 * @returns The index of a value that nests too deep, or `-1`.
 */
export function deepestPart(values: readonly unknown[], maxDepths: readonly number[]): number {
  const stack: unknown[] = [];
  const left: number[] = [];
  let budget = 1_000_000;
  for (let part = 0; part < values.length; part++) {
    stack.push(values[part]);
    left.push(maxDepths[part] ?? MAX_SNAPSHOT_DEPTH);
    while (stack.length) {
      const v = stack.pop();
      const room = left.pop() as number;
      if (v === null || typeof v !== "object") continue;
      if (room <= 0 || --budget < 0) return part;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const child: unknown = v[i];
          if (child !== null && typeof child === "object") {
            stack.push(child);
            left.push(room - 1);
          }
        }
        continue;
      }
      for (const key in v) {
        const child: unknown = (v as Record<string, unknown>)[key];
        if (child !== null && typeof child === "object") {
          stack.push(child);
          left.push(room - 1);
        }
      }
    }
    stack.length = 0;
    left.length = 0;
  }
  return -1;
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
