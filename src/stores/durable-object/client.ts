/**
 * {@link DurableObjectThreadStore}: the thread store a Worker uses, each operation one call to the
 * thread's own Durable Object.
 *
 * @module
 */
import type { ClaimOutcome, ExecutionLedger } from "../../agent/ledger/ledger.js";
import type { JsonValue } from "../../agent/messages/messages.js";
import { StoreBusyError, whileBusy, type BusyPolicy } from "../busy.js";
import type { DurableObjectNamespaceLike, Op } from "./binding.js";
import {
  decodeThread,
  emptyThread,
  type LedgerHolder,
  type LoggedEvents,
  type ThreadData,
  type ThreadRecord,
  ThreadStoreError,
  type ThreadStore,
} from "../thread-store.js";

/** Options of {@link DurableObjectThreadStore}. */
export interface DurableObjectThreadStoreOptions {
  /** Prefix of the object names (`idFromName(prefix + threadId)`), to share a namespace. Default `""`. */
  prefix?: string;
  /**
   * How long a read, settle or release waits out an error the platform marks transient
   * (`retryable`, not `overloaded`) before the request ends with `STORE_BUSY`. Default 5000 ms.
   */
  busyTimeoutMs?: number;
}

/** Workers mark a Durable Object error the caller may retry with `retryable: true`. */
function transient(error: unknown): boolean {
  if (error instanceof StoreBusyError) return !overloaded(error.cause);
  return (error as { retryable?: unknown } | null)?.retryable === true && !overloaded(error);
}

/** An overloaded object must not be sent more work at once: the request ends busy instead. */
function overloaded(error: unknown): boolean {
  return (error as { overloaded?: unknown } | null)?.overloaded === true;
}

/**
 * A {@link ThreadStore} over a {@link KabooThread} Durable Object binding: each thread is its own
 * object, so its reads, writes and claims are serialised wherever the Worker runs.
 *
 * @example
 * ```ts
 * import { DurableObjectThreadStore, KabooThread } from "kaboo-workflows/stores/durable-object";
 * export { KabooThread };
 * export default {
 *   fetch: (request: Request, env: Env) =>
 *     createAguiHandler({ agent, stores: { thread: new DurableObjectThreadStore(env.KABOO_THREAD) } })(request),
 * };
 * ```
 */
export class DurableObjectThreadStore implements ThreadStore {
  readonly #namespace: DurableObjectNamespaceLike;
  readonly #prefix: string;
  readonly #busy: BusyPolicy;

  /**
   * @param namespace - The binding of the {@link KabooThread} class.
   * @param options - `prefix` (default `""`), `busyTimeoutMs` (default 5000).
   */
  constructor(namespace: DurableObjectNamespaceLike, options: DurableObjectThreadStoreOptions = {}) {
    this.#namespace = namespace;
    this.#prefix = options.prefix ?? "";
    this.#busy = { timeoutMs: options.busyTimeoutMs };
  }

  async load(threadId: string): Promise<ThreadRecord> {
    const { body } = (await this.#call(threadId, { op: "load" })) as { body: string | null };
    return body === null ? emptyThread() : decodeThread(body);
  }

  async compareAndSet(threadId: string, expectedVersion: number, data: ThreadData): Promise<boolean> {
    return (
      ((await this.#call(threadId, { op: "cas", expected: expectedVersion, data })) as { ok: boolean }).ok === true
    );
  }

  async appendEvents(
    threadId: string,
    runId: string,
    from: number,
    events: JsonValue[],
    ended: boolean,
  ): Promise<void> {
    await this.#call(threadId, { op: "events.append", runId, from, events, ended });
  }

  async readEvents(threadId: string, runId: string, after: number): Promise<LoggedEvents | undefined> {
    const { logged } = (await this.#call(threadId, { op: "events.read", runId, after })) as {
      logged: LoggedEvents | null;
    };
    return logged ?? undefined;
  }

  async compactEvents(threadId: string, before: number): Promise<void> {
    await this.#call(threadId, { op: "events.compact", before });
  }

  /**
   * The thread's ledger, in its object.
   * @param holder - The run that claims (see {@link LedgerHolder}): its claims hold only while it holds the
   *   thread, and the open claims of the run it took the thread over from read `unknown`. Default: none
   *   known (claims made outside a run, never refused so).
   */
  ledger(threadId: string, holder?: LedgerHolder): ExecutionLedger {
    const call = (op: Op) => this.#call(threadId, op);
    return {
      claim: async (key, options) =>
        (await call({
          op: "claim",
          key,
          ...(options ? { options } : {}),
          ...(holder ? { holder } : {}),
        })) as ClaimOutcome,
      settle: async (key, token, result) => void (await call({ op: "settle", key, token, result })),
      release: async (key, token) => void (await call({ op: "release", key, token })),
    };
  }

  async #call(threadId: string, op: Op): Promise<unknown> {
    // Reads and the holder's own settle/release are safe to send again; a write that may have landed is not.
    // An append is safe too: the same batch written again changes nothing.
    if (
      op.op === "load" ||
      op.op === "settle" ||
      op.op === "release" ||
      op.op === "events.read" ||
      op.op === "events.append"
    )
      return whileBusy(() => this.#once(threadId, op), transient, op.op, this.#busy);
    return this.#once(threadId, op);
  }

  async #once(threadId: string, op: Op): Promise<unknown> {
    // A fresh stub per try: Cloudflare's advice after a transient error of an object.
    const stub = this.#namespace.get(this.#namespace.idFromName(this.#prefix + threadId) as never);
    let response: Response;
    try {
      response = await stub.fetch("https://kaboo-thread.internal/", { method: "POST", body: JSON.stringify(op) });
    } catch (cause) {
      if (transient(cause) || overloaded(cause))
        throw new StoreBusyError(`The thread's Durable Object is busy (${op.op}); try again.`, { cause });
      throw new ThreadStoreError(`The thread's Durable Object could not be reached (${op.op}).`, { cause });
    }
    const answer = (await response.json().catch(() => null)) as { error?: unknown } | null;
    if (!response.ok || answer === null) {
      throw new ThreadStoreError(
        `The thread's Durable Object failed (${op.op}): ${String(answer?.error ?? response.status)}`,
      );
    }
    return answer;
  }
}
