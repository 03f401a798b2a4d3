/**
 * The run's history exchange: where the host hands stored transcripts to the
 * HistoryHook and reads them back after the run.
 *
 * @module
 */
import type { InvocationState } from "../../agent/events.js";
import type { Message } from "../../agent/messages/messages.js";

/** `invocationState` key of the run's {@link HistoryExchange}. */
export const HISTORY_EXCHANGE_KEY = "kabooHistoryExchange";

/**
 * One run's transcripts, by history key. A host may implement it over its own
 * store; what `get` returns is treated as untrusted and validated by the hook.
 */
export interface HistoryExchange {
  /** The stored transcript under `key`, or `undefined` when the conversation has none yet. */
  get(key: string): unknown;
  /** Stores the transcript under `key` (the hook hands over its own copy). */
  set(key: string, messages: Message[]): void;
}

/**
 * An in-memory {@link HistoryExchange}: filled from the host's store before the
 * run, read back with {@link MemoryHistoryExchange.toJSON} after it.
 */
export class MemoryHistoryExchange implements HistoryExchange {
  readonly #data = new Map<string, unknown>();

  /** @param initial - Stored transcripts by key (untrusted; checked when an agent loads them). Default none. */
  constructor(initial?: Record<string, unknown>) {
    if (initial) for (const [k, v] of Object.entries(initial)) this.#data.set(k, v);
  }

  get(key: string): unknown {
    return this.#data.get(key);
  }

  set(key: string, messages: Message[]): void {
    this.#data.set(key, messages);
  }

  /** The keys written or given. */
  keys(): string[] {
    return [...this.#data.keys()];
  }

  /** Every transcript by key, for the host to persist. */
  toJSON(): Record<string, unknown> {
    return Object.fromEntries(this.#data);
  }
}

/**
 * Creates the run's history exchange and stores it in `invocationState` under
 * {@link HISTORY_EXCHANGE_KEY}. The host calls it once per run, before invoking.
 *
 * @param invocationState - The run's state.
 * @param initial - Stored transcripts by history key (untrusted). Default none.
 * @returns The exchange; read `toJSON()` after the run to persist what the agents wrote.
 * @example
 * ```ts
 * const invocationState = {};
 * const history = createHistoryExchange(invocationState, await store.get(threadId));
 * await agent.invoke(prompt, { invocationState });
 * await store.set(threadId, history.toJSON());
 * ```
 */
export function createHistoryExchange(
  invocationState: InvocationState,
  initial?: Record<string, unknown>,
): MemoryHistoryExchange {
  const exchange = new MemoryHistoryExchange(initial);
  invocationState[HISTORY_EXCHANGE_KEY] = exchange;
  return exchange;
}

/**
 * The run's exchange, if the host put one (anything with `get` and `set` functions).
 * @param invocationState - The run's state.
 * @returns The {@link HistoryExchange}, or `undefined`.
 */
export function getHistoryExchange(invocationState: InvocationState): HistoryExchange | undefined {
  const value = invocationState[HISTORY_EXCHANGE_KEY] as Partial<HistoryExchange> | null | undefined;
  return typeof value?.get === "function" && typeof value.set === "function" ? (value as HistoryExchange) : undefined;
}
