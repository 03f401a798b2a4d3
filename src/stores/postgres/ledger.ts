/**
 * The execution ledger of one thread on PostgreSQL: one row per call in `kaboo_ledger`. A claim of a
 * call nobody claimed is one `INSERT … ON CONFLICT DO NOTHING`; for any other, an answer that writes
 * nothing (done, running, unknown) is read without a lock. Once a claim found its call's row, the next
 * ones on the same ledger (a resumed run replaying its earlier calls) are each one statement that
 * inserts or else reads the row, until one inserts (not on PGlite, embedded: no round trip to save);
 * a claim that writes reads the row `FOR UPDATE` and applies the shared rule (`decideClaim`) in the
 * same transaction, so two servers claiming one call get one `claimed`. A settle is the settle rule
 * in one `UPDATE` (the row's token compared in it); a release reads the row, applies `releasable`, and
 * deletes only if the row is still as read.
 *
 * @module
 */
import type { ClaimOptions, ClaimOutcome, ExecutionLedger, LedgerResult } from "../../agent/ledger/ledger.js";
import { decideClaim, releasable, type LedgerRow } from "../../agent/ledger/claim-rule.js";
import { type LedgerHolder, parseLedgerRow, ThreadStoreError } from "../thread-store.js";
import { num, pgStep, type PgParam, type PgQuery, type PgQueryable, type PgRow } from "./queryable.js";

/** How many times a claim that lost an insert race reads again. */
const RETRIES = 8;

const READ_ROW =
  "SELECT token, claimed_at, lease_expires_at, holder, result FROM kaboo_ledger WHERE thread_id = $1 AND key = $2";
const SELECT_ROW = `${READ_ROW} FOR UPDATE`;

/** What a claim read without a lock returns when its answer writes (it is decided again under the lock). */
const WRITES = Symbol("writes");

// The holder check locks the thread's row (FOR SHARE) until the claim commits: a compare-and-set
// that hands the thread to another run waits for it, or the claim sees the new holder.
const INSERT_ROW =
  "INSERT INTO kaboo_ledger (thread_id, key, token, claimed_at, lease_expires_at, holder) " +
  "SELECT $1::text, $2::text, $3::text, $4::bigint, $5::bigint, $6::text WHERE $6::text IS NULL OR EXISTS " +
  "(SELECT 1 FROM kaboo_threads WHERE thread_id = $1::text AND holder = $6::text FOR SHARE) " +
  "ON CONFLICT (thread_id, key) DO NOTHING RETURNING 1 AS ok";

// The insert, or else the row as the statement's snapshot saw it (`ok` null). Neither (no row): another
// insert of the call committed after that snapshot (a lost race), or the run no longer holds the thread.
const CLAIM_ROW =
  `WITH fresh AS (${INSERT_ROW}) SELECT ok, NULL AS token, NULL AS claimed_at, NULL AS lease_expires_at, ` +
  "NULL AS holder, NULL AS result FROM fresh UNION ALL SELECT NULL, token, claimed_at, lease_expires_at, holder, " +
  "result FROM kaboo_ledger WHERE thread_id = $1::text AND key = $2::text";

/** A stored row read back, validated (a corrupt one reads as an unknown claim). */
function toRow(r: PgRow): LedgerRow {
  let result: unknown;
  try {
    result = typeof r.result === "string" ? JSON.parse(r.result) : undefined;
  } catch {
    result = null;
  }
  return parseLedgerRow({
    token: r.token,
    claimedAt: num(r.claimed_at),
    leaseExpiresAt: num(r.lease_expires_at),
    result,
  });
}

/** The ledger of one thread (see the module). */
export class PgLedger implements ExecutionLedger {
  readonly #db: PgQueryable;
  readonly #thread: string;
  readonly #now: () => number;
  readonly #holder: LedgerHolder | undefined;
  /**
   * Whether the last claim found its call's row: claims of calls already made come in a row (a resumed
   * run replays its earlier calls), so the next claim inserts or else reads in one statement ({@link
   * CLAIM_ROW}, a little dearer than the bare insert when the call is new).
   */
  #replaying = false;

  /**
   * @param db - The database.
   * @param threadId - The thread.
   * @param now - Clock, epoch ms.
   * @param holder - The run that claims: it claims only while the thread's record names its lease, and
   *   reads an open claim of the run it took the thread over from as `unknown`. Default: none.
   */
  constructor(db: PgQueryable, threadId: string, now: () => number, holder?: LedgerHolder) {
    this.#db = db;
    this.#thread = threadId;
    this.#now = now;
    this.#holder = holder;
  }

  claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome> {
    return pgStep("ledger claim", async () => {
      // One statement for the usual cases: a call nobody claimed is claimed; after a replay, another's row is read.
      const fresh = decideClaim(undefined, this.#now(), options);
      const write = fresh.write as LedgerRow;
      let seen: ClaimOutcome | typeof WRITES | undefined;
      if (!this.#replaying) {
        if (await this.#insert(this.#db, key, write)) return fresh.outcome;
        // Embedded (PGlite) every statement is planned again, and a second one costs no round trip.
        this.#replaying = !this.#db.inProcess;
      } else {
        const [row] = (await this.#db.query(CLAIM_ROW, this.#rowParams(key, write))).rows;
        this.#replaying = row === undefined || row.ok === null;
        if (!this.#replaying) return fresh.outcome;
        // An answer that writes nothing (done, running, unknown) stands as read, without a transaction.
        seen = row && (await this.#decide(this.#db, key, row, options, false));
      }
      for (let attempt = 0; attempt < RETRIES; attempt++) {
        seen ??= await this.#claimIn(this.#db, key, options, false);
        if (seen !== WRITES && seen !== undefined) return seen;
        const outcome = await this.#db.transaction((tx) => this.#claimIn(tx, key, options, true));
        if (outcome !== WRITES && outcome !== undefined) return outcome;
        seen = undefined;
      }
      throw new ThreadStoreError(`The claim of "${key}" kept losing races.`);
    });
  }

  /**
   * One try. `locked`: inside a transaction, the row read `FOR UPDATE`, writing what the rule decides;
   * else a plain read that answers only what writes nothing ({@link WRITES} otherwise).
   * @returns The outcome; `undefined` when another insert of the same call won (read again).
   */
  async #claimIn(
    tx: PgQuery,
    key: string,
    options: ClaimOptions | undefined,
    locked: boolean,
  ): Promise<ClaimOutcome | typeof WRITES | undefined> {
    const stored = (await tx.query(locked ? SELECT_ROW : READ_ROW, [this.#thread, key])).rows[0];
    return this.#decide(tx, key, stored, options, locked);
  }

  /** {@link PgLedger.#claimIn} once the row is read (`undefined`: there is none). */
  async #decide(
    tx: PgQuery,
    key: string,
    stored: PgRow | undefined,
    options: ClaimOptions | undefined,
    locked: boolean,
  ): Promise<ClaimOutcome | typeof WRITES | undefined> {
    const now = this.#now();
    const row = stored && toRow(stored);
    const dead = this.#holder?.tookOver;
    // An open claim of the run this one took the thread over from: that run is gone, the call cut off.
    const cutOff =
      row !== undefined &&
      row.result === undefined &&
      row.leaseExpiresAt > now &&
      dead !== undefined &&
      stored?.holder === dead;
    const { outcome, write } = decideClaim(cutOff && row ? { ...row, leaseExpiresAt: now } : row, now, options);
    if (!write && !cutOff) return outcome;
    if (!locked) return WRITES;
    // The run lost the thread (another run's lease was written over its own): it claims nothing more.
    if (this.#holder && !(await this.#holds(tx))) return { status: "running", leaseExpiresAt: now };
    if (write && !stored) return (await this.#insert(tx, key, write)) ? outcome : undefined;
    if (write)
      await tx.query(
        "UPDATE kaboo_ledger SET token = $3, claimed_at = $4::bigint, lease_expires_at = $5::bigint, holder = $6, result = NULL WHERE thread_id = $1 AND key = $2",
        [this.#thread, key, write.token, write.claimedAt, write.leaseExpiresAt, this.#holder?.token ?? null],
      );
    // Written cut off: every later claim reads it `unknown` too.
    else
      await tx.query("UPDATE kaboo_ledger SET lease_expires_at = $3::bigint WHERE thread_id = $1 AND key = $2", [
        this.#thread,
        key,
        now,
      ]);
    return outcome;
  }

  /** The parameters of {@link INSERT_ROW} and {@link CLAIM_ROW}: the call's row, claimed by this run. */
  #rowParams(key: string, row: LedgerRow): PgParam[] {
    return [this.#thread, key, row.token, row.claimedAt, row.leaseExpiresAt, this.#holder?.token ?? null];
  }

  /** Inserts the call's row unless it exists (or the claiming run no longer holds the thread). */
  async #insert(q: PgQuery, key: string, row: LedgerRow): Promise<boolean> {
    return (await q.query(INSERT_ROW, this.#rowParams(key, row))).rows.length === 1;
  }

  /** Whether the thread's record still names this run's lease (its row locked until the transaction ends). */
  async #holds(tx: PgQuery): Promise<boolean> {
    const { rows } = await tx.query("SELECT holder FROM kaboo_threads WHERE thread_id = $1 FOR SHARE", [this.#thread]);
    return rows[0]?.holder === this.#holder?.token;
  }

  /**
   * The settle rule (`decideSettle`: only the claim that holds the call records its result, and a repeat by
   * it replaces the result) in one atomic statement: the row's token is compared in the `UPDATE` itself, so a
   * row taken over, released or claimed anew records nothing, without a read first.
   */
  settle(key: string, token: string, result: LedgerResult): Promise<void> {
    return pgStep("ledger settle", async () => {
      await this.#db.query("UPDATE kaboo_ledger SET result = $3 WHERE thread_id = $1 AND key = $2 AND token = $4", [
        this.#thread,
        key,
        JSON.stringify(result),
        token,
      ]);
    });
  }

  /**
   * Reads the row, applies the release rule, and deletes it only if it is still as read (the same
   * token, no result): a row settled or taken over in between is no longer the releaser's to drop.
   */
  release(key: string, token: string): Promise<void> {
    return pgStep("ledger release", async () => {
      const stored = (await this.#db.query(READ_ROW, [this.#thread, key])).rows[0];
      if (!releasable(stored && toRow(stored), token)) return;
      await this.#db.query(
        "DELETE FROM kaboo_ledger WHERE thread_id = $1 AND key = $2 AND token = $3 AND result IS NULL",
        [this.#thread, key, String(stored?.token)],
      );
    });
  }
}
