/**
 * The hook registry: where hooks subscribe to events, and how events are dispatched.
 *
 * @module
 */
import { HookError, HookErrors } from "../errors.js";
import type { HookEvent } from "./events.js";
import { InterruptSignal } from "./interrupts/interrupt.js";

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
  /**
   * Callbacks per event class, already in dispatch order (reversed for `After*` events). A list is
   * never changed in place: adding or removing a callback stores a new one, so a dispatch walks the
   * list it started with (a callback added or removed meanwhile counts from the next event on) and
   * copies nothing.
   */
  #entries = new Map<HookEventClass<HookEvent<unknown>>, readonly Entry[]>();
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
    this.#entries.set(key, eventClass.reverse ? [entry, ...list] : [...list, entry]);
    const entries = this.#entries;
    return function removeHookCallback() {
      const now = entries.get(key);
      if (!now?.includes(entry)) return;
      const rest = now.filter((e) => e !== entry);
      if (rest.length) entries.set(key, rest);
      else entries.delete(key);
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
    return this.#entries.has(eventClass as never);
  }

  /**
   * Dispatches an event to its callbacks and returns it (with whatever they wrote).
   * @throws HookError when a callback throws; InterruptSignal when one interrupts.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any event class; the callback is typed by E
  async invoke<E extends HookEvent<any>>(event: E): Promise<E> {
    return this.dispatch(event);
  }

  /**
   * {@link HookRegistry.invoke} without a promise where none is needed: runs the callbacks in order and
   * returns the event itself when every one finished synchronously, or a promise of it from the first
   * callback that returned one (the rest run after it settles). The runner dispatches its per-call
   * events this way, so a cycle whose hooks are synchronous waits on no microtask for them.
   * @param event - The event.
   * @returns `event`, or a promise of it.
   * @throws HookError, HookErrors or InterruptSignal as {@link HookRegistry.invoke} rejects (synchronously
   *   when no callback before the failing one was async, else through the promise).
   * @example
   * ```ts
   * const pending = registry.dispatch(event);
   * if (pending !== event) await pending;
   * ```
   */
  // biome-ignore lint/suspicious/noExplicitAny: any event class; the callback is typed by E
  dispatch<E extends HookEvent<any>>(event: E): E | Promise<E> {
    const cls = event.constructor as HookEventClass<E>;
    const list = this.#entries.get(cls as never);
    return list ? runFrom(event, cls, list, 0, undefined) : event;
  }
}

/** Runs `list[i…]` on the event; see {@link HookRegistry.dispatch}. `failures` is made at the first one (a `runsAll` event's). */
// biome-ignore lint/suspicious/noExplicitAny: any event class
function runFrom<E extends HookEvent<any>>(
  event: E,
  cls: HookEventClass<E>,
  list: readonly Entry[],
  i: number,
  failures: HookError[] | undefined,
): E | Promise<E> {
  for (; i < list.length; i++) {
    const entry = list[i] as Entry;
    try {
      const out = (entry.callback as HookCallback<E>)(event);
      if (out && typeof (out as PromiseLike<unknown>).then === "function") {
        const next = i + 1;
        let kept = failures;
        return Promise.resolve(out)
          .then(undefined, (error: unknown) => {
            kept = [...(kept ?? []), fail(error, entry, cls)];
          })
          .then(() => runFrom(event, cls, list, next, kept));
      }
    } catch (error) {
      failures = [...(failures ?? []), fail(error, entry, cls)];
    }
  }
  if (!failures) return event;
  throw failures.length > 1 ? new HookErrors(failures) : failures[0];
}

/**
 * A callback's error as the dispatch fails with it: thrown at once (an InterruptSignal as is, else as a
 * {@link HookError}), except on cleanup events (AfterInvocation), which run every callback, as one that throws
 * must not skip the session save or the publisher close registered beside it: there it is returned, to be
 * thrown after the last.
 */
// biome-ignore lint/suspicious/noExplicitAny: any event class
function fail(error: unknown, entry: Entry, cls: HookEventClass<HookEvent<any>>): HookError {
  if (error instanceof InterruptSignal && !cls.runsAll) throw error;
  const failure = error instanceof HookError ? error : new HookError(entry.hookName, cls.eventType, error);
  if (!cls.runsAll) throw failure;
  return failure;
}
