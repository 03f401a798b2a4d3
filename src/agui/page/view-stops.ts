/**
 * The Stop of a view's run: one `AbortController` per run or connect, made when `runAgent()` or
 * `connectAgent()` is called (before the AG-UI client subscribes), taken by the subscription, and
 * aborted by `abortRun()`. A run outlives its view; the Stop of the run a tab drives is kept by thread
 * in `KabooAgent` itself.
 *
 * @module
 */
import type { BaseEvent } from "@ag-ui/core";
import { Observable } from "rxjs";
import type { KabooRunParameters } from "./config.js";

/** The Stops of one `KabooAgent`'s view: the one starting and the one running. */
export class ViewStops {
  /**
   * Made when `runAgent()`/`connectAgent()` is called, before the AG-UI client subscribes to the run: a stop
   * in between (the client awaits its subscribers first) would otherwise find no run to abort.
   */
  #next: AbortController | undefined;
  /** The current run's. */
  #controller: AbortController | undefined;

  /** Aborts the run starting and the run running. */
  abort(): void {
    this.#next?.abort();
    this.#controller?.abort();
  }

  /**
   * Makes the Stop of the run or connect `started` begins (before the client subscribes to it), and forgets it
   * if it was never taken (the client refused to start: open questions left unanswered).
   */
  starting<T>(parameters: KabooRunParameters | undefined, start: () => Promise<T>): Promise<T> {
    const stop = parameters?.abortController ?? new AbortController();
    this.#next = stop;
    return start().finally(() => {
      if (this.#next === stop) this.#next = undefined;
    });
  }

  /**
   * The events of a run or a connect, for one subscriber. `stop` is the Stop (`abortRun()`, the caller's
   * `abortController`); `view` also ends when the subscriber leaves. A run outlives its view: a subscriber that
   * leaves (`detachActiveRun()`, which CopilotKit calls when the person opens another thread) stops watching, and
   * the run this tab drives goes on to its end, checkpointed; `connectAgent()` follows it again.
   */
  observe(events: (stop: AbortController, view: AbortSignal) => AsyncGenerator<BaseEvent>): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      const stop = this.#next ?? new AbortController();
      this.#next = undefined;
      this.#controller = stop;
      const view = new AbortController();
      const leave = () => view.abort(stop.signal.reason);
      if (stop.signal.aborted) leave();
      else stop.signal.addEventListener("abort", leave, { once: true });
      const done = () => {
        stop.signal.removeEventListener("abort", leave);
        if (this.#controller === stop) this.#controller = undefined;
      };
      (async () => {
        for await (const event of events(stop, view.signal)) subscriber.next(event);
        subscriber.complete();
      })()
        .catch((error: unknown) => subscriber.error(error))
        .finally(() => stop.signal.removeEventListener("abort", leave));
      return () => {
        view.abort();
        done();
      };
    });
  }
}
