/**
 * The hook registry: where hooks subscribe to events, and how events are dispatched.
 *
 * @module
 */
import { HookError, HookErrors } from "../errors.js";
import type { HookEvent } from "./events.js";
import { InterruptSignal } from "./interrupt.js";

/** A class of hook event (e.g. `BeforeToolCallEvent`); `never[]` arguments so every event's constructor fits (only the instance type matters). */
// biome-ignore lint/suspicious/noExplicitAny: events differ in the agent type they carry; only the instance type matters here
export type HookEventClass<E extends HookEvent<any>> = (abstract new (
  ...args: never[]
) => E) & {
  readonly eventType: string;
  readonly reverse: boolean;
  /** Whether every callback runs even when one throws (their errors are thrown together after). */
  readonly runsAll?: boolean;
};

/**
 * A callback for one event type; may be async (a returned promise is awaited).
 * Any other return value is ignored, so `(e) => log.push(e.type)` type-checks as a callback.
 */
export type HookCallback<E> = (event: E) => unknown;

/** Something that registers callbacks on a registry: every hook of this package is one. */
export interface HookProvider {
  registerHooks(registry: HookRegistry): void;
}

interface Entry {
  callback: HookCallback<never>;
  hookName: string;
}

/**
 * Holds callbacks per event class and dispatches events to them.
 *
 * Callbacks run one after another (awaited) in registration order, and in
 * reverse order for `After*` events. A callback that throws fails the run with
 * a {@link HookError} naming the hook and the event; an {@link InterruptSignal}
 * passes through unchanged. Events marked `runsAll` (`AfterInvocationEvent`) run every callback
 * and then throw the one failure, or {@link HookErrors} with all of them.
 *
 * @example
 * ```ts
 * const off = agent.hooks.addCallback(BeforeToolCallEvent, (e) => {
 *   if (e.toolUse.name === "rm") e.cancel = "Deleting is not allowed.";
 * });
 * off(); // unsubscribe
 * ```
 */
export class HookRegistry {
  #entries = new Map<HookEventClass<HookEvent<unknown>>, Entry[]>();
  #currentProvider: string | undefined;

  /**
   * Subscribes a callback to an event class.
   * @param eventClass - The event to listen to.
   * @param callback - Called with each event; may be async.
   * @returns A function that removes the callback.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any event class; the callback is typed by E
  addCallback<E extends HookEvent<any>>(eventClass: HookEventClass<E>, callback: HookCallback<E>): () => void {
    const key = eventClass as unknown as HookEventClass<HookEvent<unknown>>;
    const list = this.#entries.get(key) ?? [];
    const entry: Entry = {
      callback: callback as HookCallback<never>,
      hookName: this.#currentProvider ?? (callback.name || "anonymous callback"),
    };
    list.push(entry);
    this.#entries.set(key, list);
    return function removeHookCallback() {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /**
   * Lets a provider register its callbacks; errors they throw name the provider's class.
   * @param provider - The hook.
   */
  addHook(provider: HookProvider): void {
    const previous = this.#currentProvider;
    this.#currentProvider = provider.constructor?.name || "HookProvider";
    try {
      provider.registerHooks(this);
    } finally {
      this.#currentProvider = previous;
    }
  }

  /** Whether any callback listens to this event class. */
  // biome-ignore lint/suspicious/noExplicitAny: any event class; the callback is typed by E
  has(eventClass: HookEventClass<HookEvent<any>>): boolean {
    return (this.#entries.get(eventClass as never)?.length ?? 0) > 0;
  }

  /**
   * Dispatches an event to its callbacks and returns it (with whatever they wrote).
   * @throws HookError when a callback throws; InterruptSignal when one interrupts.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any event class; the callback is typed by E
  async invoke<E extends HookEvent<any>>(event: E): Promise<E> {
    const cls = event.constructor as HookEventClass<E>;
    const list = this.#entries.get(cls as never);
    if (!list || list.length === 0) return event;
    const ordered = cls.reverse ? [...list].reverse() : [...list];
    // Cleanup events (AfterInvocation) run every callback: one that throws must not skip the
    // session save or the publisher close registered beside it.
    const failures: HookError[] = [];
    for (const entry of ordered) {
      try {
        const out = (entry.callback as HookCallback<E>)(event);
        if (out && typeof (out as PromiseLike<unknown>).then === "function") await out;
      } catch (error) {
        if (error instanceof InterruptSignal && !cls.runsAll) throw error;
        const failure = error instanceof HookError ? error : new HookError(entry.hookName, cls.eventType, error);
        if (!cls.runsAll) throw failure;
        failures.push(failure);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new HookErrors(failures);
    return event;
  }
}
