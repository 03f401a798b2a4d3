/**
 * Agent state: a JSON-only key/value store that travels with the agent.
 *
 * @module
 */
import { UserError } from "../errors.js";
import type { JsonObject, JsonValue } from "./messages/messages.js";

/**
 * A key/value store whose values must be JSON. Values are copied in and out,
 * so callers cannot mutate the stored state by accident.
 *
 * @example
 * ```ts
 * agent.state.set("cart", { items: 2 });
 * agent.state.get("cart"); // { items: 2 }
 * ```
 */
export class AgentState {
  // Prototype-less, so keys such as "__proto__" are plain keys.
  #data: Record<string, JsonValue> = Object.create(null) as Record<string, JsonValue>;

  /** @param initial - Starting values (copied, must be JSON). */
  constructor(initial?: JsonObject) {
    if (initial) for (const [k, v] of Object.entries(initial)) this.set(k, v);
  }

  /** A copy of the value at `key`, or `undefined`. */
  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    const v = this.#data[key];
    return v === undefined ? undefined : (structuredClone(v) as T);
  }

  /**
   * Stores a copy of a JSON value.
   * @throws UserError when the value is not JSON (functions, cycles, NaN, class instances, …).
   */
  set(key: string, value: JsonValue): void {
    let copy: JsonValue;
    try {
      copy = JSON.parse(JSON.stringify(value)) as JsonValue;
    } catch (error) {
      throw new UserError(`Agent state "${key}" must be JSON-serialisable.`, { cause: error });
    }
    if (!sameJson(copy, value))
      throw new UserError(`Agent state "${key}" must be plain JSON (it changed in a JSON round trip).`);
    this.#data[key] = copy;
  }

  /** Removes a key. */
  delete(key: string): void {
    delete this.#data[key];
  }

  /** The keys present. */
  keys(): string[] {
    return Object.keys(this.#data);
  }

  /** A plain copy of the whole state. */
  toJSON(): JsonObject {
    return structuredClone({ ...this.#data });
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (!Array.isArray(b) && Object.getPrototypeOf(b) !== Object.prototype && Object.getPrototypeOf(b) !== null)
    return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
