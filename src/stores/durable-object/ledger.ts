/**
 * The ledger of a thread's Durable Object in its SQLite storage: claims, settles and releases applying the
 * one claim rule (`agent/ledger/claim-rule.ts`) to the object's rows, each synchronously (so atomically),
 * and the end of the claims a run inside the object made once that run is known to have died.
 *
 * @module
 */
import type { ClaimOptions, ClaimOutcome, LedgerResult } from "../../agent/ledger/ledger.js";
import { decideClaim, releasable, decideSettle, type LedgerRow } from "../../agent/ledger/claim-rule.js";
import type { SqlStorageLike } from "./sql.js";
import { deleteParts, readParts, textParts, writeParts } from "./parts.js";
import { holdsThread, noteHolder, seenBy } from "./holder.js";
import { parseLedgerRow, type LedgerHolder } from "../thread-store.js";

/** The ledger's tables: its rows, and the claims a run inside the object made (by token: only they die with it). */
export const LEDGER_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS kaboo_ledger (key TEXT PRIMARY KEY, token TEXT NOT NULL, claimed_at INTEGER NOT NULL, lease_expires_at INTEGER NOT NULL, result TEXT)",
  "CREATE TABLE IF NOT EXISTS kaboo_own_claims (key TEXT PRIMARY KEY, token TEXT NOT NULL)",
];

/**
 * A ledger claim, synchronously.
 * @param sql - The object's SQL storage.
 * @param key - The call's execution key.
 * @param options - The claim's options.
 * @param now - The time, epoch ms.
 * @param holder - The run that claims from outside the object, by its lease (see holder.ts).
 *   Absent: a claim made outside a run, or by a run this object hosts.
 * @param recordLease - Reads the lease token from the thread record (for a record written before tokens were kept).
 * @returns The claim's outcome.
 */
export function claimInObject(
  sql: SqlStorageLike,
  key: string,
  options: ClaimOptions | undefined,
  now: number,
  holder: LedgerHolder | undefined,
  recordLease: () => string | undefined,
): ClaimOutcome {
  if (holder && !holdsThread(sql, holder, recordLease)) return { status: "running", leaseExpiresAt: now };
  const fresh = decideClaim(undefined, now, options);
  if (fresh.write && insertRow(sql, key, fresh.write)) {
    if (holder) noteHolder(sql, key, fresh.write.token, holder);
    return fresh.outcome;
  }
  const seen = holder ? seenBy(sql, key, readRow(sql, key), holder, now) : { row: readRow(sql, key), cutOff: false };
  const { outcome, write } = decideClaim(seen.row, now, options);
  if (write) {
    sql.exec(
      "UPDATE kaboo_ledger SET token = ?, claimed_at = ?, lease_expires_at = ?, result = NULL WHERE key = ?",
      write.token,
      write.claimedAt,
      write.leaseExpiresAt,
      key,
    );
    deleteParts(sql, "ledger", key);
    if (holder) noteHolder(sql, key, write.token, holder);
  } else if (seen.cutOff) {
    // Written cut off: every later claim reads it `unknown` too.
    sql.exec("UPDATE kaboo_ledger SET lease_expires_at = ? WHERE key = ?", now, key);
  }
  return outcome;
}

/**
 * A ledger settle, synchronously: records `result` if `token` still holds the claim.
 * @param sql - The object's SQL storage.
 * @param key - The call's execution key.
 * @param token - The claim's token.
 * @param result - The call's result.
 */
export function settleInObject(sql: SqlStorageLike, key: string, token: string, result: LedgerResult): void {
  const row = decideSettle(readRow(sql, key), token, result);
  if (!row) return;
  const [first = "", ...rest] = textParts(JSON.stringify(row.result));
  sql.exec("UPDATE kaboo_ledger SET result = ? WHERE key = ?", first, key);
  writeParts(sql, "ledger", key, 0, rest);
}

/**
 * A ledger release, synchronously: drops the claim if `token` still holds it and it has no result.
 * @param sql - The object's SQL storage.
 * @param key - The call's execution key.
 * @param token - The claim's token.
 */
export function releaseInObject(sql: SqlStorageLike, key: string, token: string): void {
  if (!releasable(readRow(sql, key), token)) return;
  sql.exec("DELETE FROM kaboo_ledger WHERE key = ?", key);
  deleteParts(sql, "ledger", key);
}

/**
 * Marks a claim as made by a run inside the object, or forgets it once settled or released.
 * @param sql - The object's SQL storage.
 * @param key - The call's execution key.
 * @param token - The claim's token.
 * @param own - `true` to mark, `false` to forget.
 */
export function noteOwnClaim(sql: SqlStorageLike, key: string, token: string, own: boolean): void {
  if (own)
    sql.exec(
      "INSERT INTO kaboo_own_claims (key, token) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET token = ?",
      key,
      token,
      token,
    );
  else sql.exec("DELETE FROM kaboo_own_claims WHERE key = ? AND token = ?", key, token);
}

/**
 * Ends the lease of every claim without a result that a run inside the object made (see
 * `SqlThreadStore.expireOpenClaims`), and forgets them all.
 * @param sql - The object's SQL storage.
 * @param now - The time, epoch ms.
 * @returns How many claims were ended.
 */
export function expireOwnClaims(sql: SqlStorageLike, now: number): number {
  const ended = sql
    .exec(
      "UPDATE kaboo_ledger SET lease_expires_at = ? WHERE result IS NULL AND lease_expires_at > ? " +
        "AND EXISTS (SELECT 1 FROM kaboo_own_claims o WHERE o.key = kaboo_ledger.key AND o.token = kaboo_ledger.token) " +
        "RETURNING key",
      now,
      now,
    )
    .toArray().length;
  sql.exec("DELETE FROM kaboo_own_claims");
  return ended;
}

/** Inserts a row unless the key exists; `true` when this call inserted it. */
function insertRow(sql: SqlStorageLike, key: string, row: LedgerRow): boolean {
  return (
    sql
      .exec(
        "INSERT INTO kaboo_ledger (key, token, claimed_at, lease_expires_at, result) VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING RETURNING key",
        key,
        row.token,
        row.claimedAt,
        row.leaseExpiresAt,
        row.result === undefined ? null : JSON.stringify(row.result),
      )
      .toArray().length === 1
  );
}

function readRow(sql: SqlStorageLike, key: string): LedgerRow | undefined {
  const r = sql
    .exec("SELECT token, claimed_at, lease_expires_at, result FROM kaboo_ledger WHERE key = ?", key)
    .toArray()[0];
  if (!r) return undefined;
  let result: unknown;
  try {
    const rest = typeof r.result === "string" ? readParts(sql, "ledger", key).get(0) : undefined;
    result = typeof r.result === "string" ? JSON.parse(rest === undefined ? r.result : r.result + rest) : undefined;
  } catch {
    result = null;
  }
  return parseLedgerRow({ token: r.token, claimedAt: r.claimed_at, leaseExpiresAt: r.lease_expires_at, result });
}
