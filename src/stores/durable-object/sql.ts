/**
 * One thread's record and ledger on a Durable Object's SQLite storage, used inside the object: by
 * {@link KabooThread} to answer the store operations of other isolates, and directly by a run the
 * object hosts (no round trip). SQL runs synchronously inside the object, so each step is atomic.
 *
 * @module
 */
import type { ClaimOptions, ClaimOutcome, ExecutionLedger, LedgerResult } from "../../agent/ledger/ledger.js";
import type { JsonValue } from "../../agent/messages/messages.js";
import {
  decodeThread,
  emptyThread,
  encodeThread,
  type LedgerHolder,
  type LoggedEvents,
  type ThreadData,
  type ThreadRecord,
  type ThreadStore,
} from "../thread-store.js";
import { deleteParts, PARTS_SCHEMA, readParts, textParts, writeParts } from "./parts.js";
import { HOLDERS_SCHEMA, leaseTokenOf, noteLease } from "./holder.js";
import {
  claimInObject,
  expireOwnClaims,
  LEDGER_SCHEMA,
  noteOwnClaim,
  releaseInObject,
  settleInObject,
} from "./ledger.js";

/** The part of a Durable Object's `ctx.storage.sql` this store uses. */
export interface SqlStorageLike {
  exec(query: string, ...bindings: (string | number | null)[]): { toArray(): Record<string, unknown>[] };
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS kaboo_thread (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, body TEXT NOT NULL)",
  // Texts past their first part (the record, a result, an event): SQLite here refuses a value over 2 MB.
  PARTS_SCHEMA,
  // The ledger's rows, and the claims made by a run inside this object (through ledger()), by token: only they die with it.
  ...LEDGER_SCHEMA,
  "CREATE TABLE IF NOT EXISTS kaboo_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS kaboo_events (run_id TEXT NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, idx))",
  "CREATE TABLE IF NOT EXISTS kaboo_event_runs (run_id TEXT PRIMARY KEY, next INTEGER NOT NULL, ended_at INTEGER)",
  // Which run made each claim sent from outside the object, and the thread's lease (see holder.ts).
  ...HOLDERS_SCHEMA,
];

/**
 * The thread of one Durable Object as a {@link ThreadStore}. The object holds one thread, so the
 * `threadId` arguments are not used to find it.
 */
export class SqlThreadStore implements ThreadStore {
  readonly #sql: SqlStorageLike;
  readonly #now: () => number;

  /**
   * @param sql - `ctx.storage.sql` of the thread's object.
   * @param now - Clock, epoch ms. Default `Date.now`.
   */
  constructor(sql: SqlStorageLike, now: () => number = Date.now) {
    this.#sql = sql;
    this.#now = now;
    for (const statement of SCHEMA) sql.exec(statement);
  }

  /** The stored record's text, or `null`. */
  loadText(): string | null {
    const row = this.#sql.exec("SELECT body FROM kaboo_thread WHERE id = 1").toArray()[0];
    if (typeof row?.body !== "string") return null;
    const rest = readParts(this.#sql, "thread", "").get(0);
    return rest === undefined ? row.body : row.body + rest;
  }

  /**
   * When the stored lease runs out, read without checking the rest of the record (a hosting object
   * asks it of every request: the full check of a long transcript is the run's own load).
   *
   * @returns The lease's `expiresAt`, or `undefined` with no lease (or no readable record).
   */
  leaseExpiresAt(): number | undefined {
    const text = this.loadText();
    if (text === null) return undefined;
    try {
      const lease = (JSON.parse(text) as { lease?: { expiresAt?: unknown } | null }).lease;
      return typeof lease?.expiresAt === "number" ? lease.expiresAt : undefined;
    } catch {
      return undefined;
    }
  }

  async load(_threadId: string): Promise<ThreadRecord> {
    const text = this.loadText();
    return text === null ? emptyThread() : decodeThread(text);
  }

  async compareAndSet(_threadId: string, expectedVersion: number, data: ThreadData): Promise<boolean> {
    return this.compareAndSetNow(expectedVersion, data);
  }

  /** {@link compareAndSet}, synchronously. */
  compareAndSetNow(expected: number, data: ThreadData): boolean {
    const [body = "", ...rest] = textParts(encodeThread(expected + 1, data));
    const written =
      expected === 0
        ? this.#sql.exec(
            "INSERT INTO kaboo_thread (id, version, body) VALUES (1, 1, ?) ON CONFLICT(id) DO NOTHING RETURNING version",
            body,
          )
        : this.#sql.exec(
            "UPDATE kaboo_thread SET version = ?, body = ? WHERE id = 1 AND version = ? RETURNING version",
            expected + 1,
            body,
            expected,
          );
    if (written.toArray().length !== 1) return false;
    // In the same synchronous step as the version check: the object commits them together.
    writeParts(this.#sql, "thread", "", 0, rest);
    noteLease(this.#sql, data.lease?.token);
    return true;
  }

  /**
   * The ledger of a run inside this object. Its claims are marked as this object's own, so that
   * {@link expireOpenClaims} ends them, and only them, once the object is known to have died.
   */
  ledger(_threadId: string): ExecutionLedger {
    return {
      claim: async (key, options) => {
        const outcome = this.claimNow(key, options);
        if (outcome.status === "claimed") noteOwnClaim(this.#sql, key, outcome.token, true);
        return outcome;
      },
      settle: async (key, token, result) => {
        this.settleNow(key, token, result);
        noteOwnClaim(this.#sql, key, token, false);
      },
      release: async (key, token) => {
        this.releaseNow(key, token);
        noteOwnClaim(this.#sql, key, token, false);
      },
    };
  }

  /**
   * A ledger claim, synchronously.
   * @param holder - The run that claims from outside the object, by its lease (see holder.ts):
   *   it claims nothing once it no longer holds the thread, and reads the open claims of the run it took the
   *   thread over from as `unknown`. Absent: a claim made outside a run, or by a run this object hosts.
   */
  claimNow(key: string, options: ClaimOptions | undefined, holder?: LedgerHolder): ClaimOutcome {
    return claimInObject(this.#sql, key, options, this.#now(), holder, () => leaseTokenOf(this.loadText()));
  }

  /** A ledger settle, synchronously. */
  settleNow(key: string, token: string, result: LedgerResult): void {
    settleInObject(this.#sql, key, token, result);
  }

  /** A ledger release, synchronously. */
  releaseNow(key: string, token: string): void {
    releaseInObject(this.#sql, key, token);
  }

  /**
   * Ends the lease of every claim without a result that a run inside this object made (through
   * {@link ledger}): called when no run of this object is alive, so each such call was cut off with
   * the run that made it. Its next claim answers `unknown` (the person is asked whether it went
   * through), never `running` for the rest of a 15-minute lease. A claim made from outside the
   * object (another isolate's store operations: a stateless handler sharing this ledger) lives
   * elsewhere and keeps its own lease.
   *
   * @returns How many claims were ended.
   */
  expireOpenClaims(): number {
    return expireOwnClaims(this.#sql, this.#now());
  }

  async appendEvents(
    _threadId: string,
    runId: string,
    from: number,
    events: JsonValue[],
    ended: boolean,
  ): Promise<void> {
    this.appendEventsNow(runId, from, events, ended);
  }

  /** {@link appendEvents}, synchronously. */
  appendEventsNow(runId: string, from: number, events: JsonValue[], ended: boolean): void {
    this.#sql.exec(
      "INSERT INTO kaboo_event_runs (run_id, next, ended_at) VALUES (?, 0, NULL) ON CONFLICT(run_id) DO NOTHING",
      runId,
    );
    const run = this.#sql.exec("SELECT next, ended_at FROM kaboo_event_runs WHERE run_id = ?", runId).toArray()[0];
    // Only the next batch counts: a batch written again (a retried write) changes nothing.
    if (!run || run.next !== from || run.ended_at !== null) return;
    for (const [i, e] of events.entries()) {
      const [first = "", ...rest] = textParts(JSON.stringify(e));
      this.#sql.exec("INSERT INTO kaboo_events (run_id, idx, body) VALUES (?, ?, ?)", runId, from + i, first);
      if (rest.length) writeParts(this.#sql, "event", runId, from + i, rest);
    }
    this.#sql.exec(
      "UPDATE kaboo_event_runs SET next = ?, ended_at = ? WHERE run_id = ?",
      from + events.length,
      ended ? this.#now() : null,
      runId,
    );
  }

  async readEvents(_threadId: string, runId: string, after: number): Promise<LoggedEvents | undefined> {
    return this.readEventsNow(runId, after);
  }

  /** {@link readEvents}, synchronously. */
  readEventsNow(runId: string, after: number): LoggedEvents | undefined {
    const run = this.#sql.exec("SELECT ended_at FROM kaboo_event_runs WHERE run_id = ?", runId).toArray()[0];
    if (!run) return undefined;
    const rows = this.#sql
      .exec("SELECT idx, body FROM kaboo_events WHERE run_id = ? AND idx > ? ORDER BY idx", runId, after)
      .toArray();
    const rest = readParts(this.#sql, "event", runId, after);
    const events = rows.map((r) => JSON.parse(String(r.body) + (rest.get(Number(r.idx)) ?? "")) as JsonValue);
    return { events, ended: run.ended_at !== null };
  }

  async compactEvents(_threadId: string, before: number): Promise<void> {
    this.compactEventsNow(before);
  }

  /** {@link compactEvents}, synchronously. */
  compactEventsNow(before: number): void {
    const old = this.#sql
      .exec("SELECT run_id FROM kaboo_event_runs WHERE ended_at IS NOT NULL AND ended_at < ?", before)
      .toArray();
    for (const { run_id } of old) {
      this.#sql.exec("DELETE FROM kaboo_events WHERE run_id = ?", String(run_id));
      deleteParts(this.#sql, "event", String(run_id));
      this.#sql.exec("DELETE FROM kaboo_event_runs WHERE run_id = ?", String(run_id));
    }
  }

  /** A value this object keeps beside its thread (the thread id, the hosted run's request). */
  meta(key: string): string | undefined {
    const row = this.#sql.exec("SELECT value FROM kaboo_meta WHERE key = ?", key).toArray()[0];
    if (typeof row?.value !== "string") return undefined;
    return row.value + (readParts(this.#sql, "meta", key).get(0) ?? "");
  }

  /**
   * Sets (or, with `undefined`, deletes) a {@link meta} value. A value past one SQLite value (a hosted run's
   * request under a large `maxBodyBytes`) keeps its first part in the row and the rest as parts.
   */
  setMeta(key: string, value: string | undefined): void {
    if (value === undefined) {
      this.#sql.exec("DELETE FROM kaboo_meta WHERE key = ?", key);
      deleteParts(this.#sql, "meta", key);
      return;
    }
    const [head = "", ...rest] = textParts(value);
    this.#sql.exec(
      "INSERT INTO kaboo_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
      key,
      head,
      head,
    );
    writeParts(this.#sql, "meta", key, 0, rest);
  }
}
