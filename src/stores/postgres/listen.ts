/**
 * The live tail of a run's event log across processes: an append notifies the channel
 * {@link EVENTS_CHANNEL} in its transaction (PostgreSQL delivers it at commit), and a reattach that
 * waits for the run's next events in another process wakes on it instead of waiting out its poll.
 * Where the driver cannot listen (Neon behind its pooler), or the listening connection fails, the
 * reattach polls as before: LISTEN only shortens the wait, it never decides what is read.
 *
 * @module
 */
import type { PgRow } from "./queryable.js";

/** The channel an event-log append notifies, with the thread and run as its payload. */
export const EVENTS_CHANNEL = "kaboo_events";

/** Longest payload sent (PostgreSQL refuses 8000 bytes and more): longer ids are not notified, only polled. */
const MAX_PAYLOAD = 7_000;

/**
 * Listens on a channel: `onNotify` gets each payload; the promise resolves, once listening, to a stop.
 * (A driver's listen, through its adapter.)
 */
export type PgListen = (channel: string, onNotify: (payload: string) => void) => Promise<() => Promise<void>>;

/**
 * The payload an append notifies for a run, or `undefined` when it is too long to send.
 * @param threadId - The thread.
 * @param runId - The run.
 * @returns JSON `[threadId, runId]`.
 */
export function eventsPayload(threadId: string, runId: string): string | undefined {
  const payload = JSON.stringify([threadId, runId]);
  return payload.length < MAX_PAYLOAD ? payload : undefined;
}

/** The part of a node-postgres client that listens. */
export interface NodePostgresListenerLike {
  query(config: { text: string }): Promise<{ rows: PgRow[] }>;
  on(event: "notification", listener: (message: { channel: string; payload?: string | undefined }) => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
  release(destroy?: boolean | Error): void;
}

/**
 * LISTEN on a client the pool lends for as long as the listen lasts.
 * @param connect - The pool's `connect`.
 * @returns The listen.
 */
export function listenOnPool(connect: () => Promise<NodePostgresListenerLike>): PgListen {
  return async (channel, onNotify) => {
    const client = await connect();
    if (typeof client.on !== "function") {
      client.release();
      throw new Error("the pool's client cannot listen");
    }
    let broken = false;
    // A listening connection that fails ends the listen; readers poll. An unhandled "error" event would be fatal to the host.
    client.on("error", () => {
      broken = true;
    });
    client.on("notification", (m) => {
      if (m.channel === channel && typeof m.payload === "string") onNotify(m.payload);
    });
    await client.query({ text: `LISTEN ${quoted(channel)}` });
    return async () => {
      await client.query({ text: `UNLISTEN ${quoted(channel)}` }).catch(() => {
        broken = true;
      });
      client.release(broken);
    };
  };
}

/** The part of a postgres.js `sql` that listens. */
export interface PostgresJsListenerLike {
  listen(channel: string, onNotify: (payload: string) => void): PromiseLike<{ unlisten(): PromiseLike<unknown> }>;
}

/**
 * postgres.js's own `sql.listen` (its dedicated connection).
 * @param sql - The `sql` function.
 * @returns The listen.
 */
export function listenOnPostgresJs(sql: PostgresJsListenerLike): PgListen {
  return async (channel, onNotify) => {
    const listening = await sql.listen(channel, onNotify);
    return async () => void (await listening.unlisten());
  };
}

/** The part of a PGlite database that listens. */
export interface PgliteListenerLike {
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
}

/**
 * PGlite's own `listen` (in process).
 * @param db - The database.
 * @returns The listen.
 */
export function listenOnPglite(db: PgliteListenerLike): PgListen {
  return (channel, onNotify) => db.listen(channel, onNotify);
}

/** A channel name as an SQL identifier. */
function quoted(channel: string): string {
  return `"${channel.replaceAll('"', '""')}"`;
}

/** How long the listening connection is kept after its last waiter (the next poll of a reattach comes soon). */
const LINGER_MS = 2_000;

/**
 * The waits of one store's reattaches for their runs' next events: one LISTEN for all of them, held
 * while any waits (and a little after), a wait ended by its run's notification or by its timeout.
 */
export class EventWaiters {
  readonly #listen: PgListen;
  readonly #waits = new Map<string, Set<() => void>>();
  #stop: Promise<(() => Promise<void>) | undefined> | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;

  /** @param listen - The driver's listen. */
  constructor(listen: PgListen) {
    this.#listen = listen;
  }

  /**
   * Waits until the run's log may have grown (a notification for it) or `ms` passed.
   * @param threadId - The thread.
   * @param runId - The run.
   * @param ms - The longest wait.
   */
  async wait(threadId: string, runId: string, ms: number): Promise<void> {
    const key = eventsPayload(threadId, runId);
    if (key === undefined) return sleep(ms);
    let wake = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const waits = this.#waits.get(key) ?? new Set();
    this.#waits.set(key, waits.add(wake));
    clearTimeout(this.#idle);
    this.#stop ??= this.#listen(EVENTS_CHANNEL, (payload) => this.#notified(payload)).catch(() => undefined);
    const timer = setTimeout(wake, ms);
    try {
      await woken;
    } finally {
      clearTimeout(timer);
      waits.delete(wake);
      if (waits.size === 0) this.#waits.delete(key);
      if (this.#waits.size === 0) this.#linger();
    }
  }

  #notified(payload: string): void {
    for (const wake of this.#waits.get(payload) ?? []) wake();
  }

  /** Stops listening once nobody waited for a while. */
  #linger(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      const stop = this.#stop;
      this.#stop = undefined;
      if (this.#waits.size === 0) void stop?.then((s) => s?.().catch(() => undefined));
      else this.#stop = stop;
    }, LINGER_MS);
    // Never keeps a Node host alive by itself (a Web runtime's timers have no unref).
    (this.#idle as { unref?: () => void }).unref?.();
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
