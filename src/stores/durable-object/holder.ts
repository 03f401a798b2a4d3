/**
 * Claims a run makes from outside its thread's Durable Object (a stateless handler's store operations) name
 * the run that made them, as in Deno KV: a claim without a result made by the run whose lease the claiming run
 * took over reads `unknown` at once (its run died, or lost the thread: its lease ran out unrenewed), and is
 * written so for every later claim; a live claim of any other run, or one made outside a run, keeps its lease.
 * A run that no longer holds the thread claims nothing more. Before, such a dead run's claim read `running` for
 * the rest of its 15-minute lease, and the thread's next run ended `CALL_IN_PROGRESS` until then.
 *
 * The thread's lease token is kept beside its record (written with it, in the same synchronous step), so a claim
 * reads it without parsing the record.
 *
 * @module
 */
import type { SqlStorageLike } from "./sql.js";
import type { LedgerHolder, LedgerRow } from "../thread-store.js";

/** Who made each open claim (the claim's token and its run's lease token), and the thread's lease token. */
export const HOLDERS_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS kaboo_claim_holders (key TEXT PRIMARY KEY, token TEXT NOT NULL, holder TEXT NOT NULL)",
  // `""`: no lease.
  "CREATE TABLE IF NOT EXISTS kaboo_lease (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL)",
];

/**
 * Keeps the token of the lease a thread record holds, in the step that writes the record.
 * @param sql - The object's SQL storage.
 * @param token - The record's lease token (`undefined`: no lease).
 */
export function noteLease(sql: SqlStorageLike, token: string | undefined): void {
  sql.exec(
    "INSERT INTO kaboo_lease (id, token) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET token = excluded.token",
    token ?? "",
  );
}

/**
 * Whether `holder` still holds the thread.
 * @param sql - The object's SQL storage.
 * @param holder - The claiming run.
 * @param recordLease - Reads the lease token from the record itself (a record written before tokens were kept).
 */
export function holdsThread(sql: SqlStorageLike, holder: LedgerHolder, recordLease: () => string | undefined): boolean {
  const row = sql.exec("SELECT token FROM kaboo_lease WHERE id = 1").toArray()[0];
  const current = typeof row?.token === "string" ? row.token : (recordLease() ?? "");
  return current !== "" && current === holder.token;
}

/**
 * The claim row as the claiming run must read it: cut off (its lease ended now) when the run whose lease this
 * one took over made it and it has no result.
 * @returns The row to decide on, and whether it was cut off (then write its lease end).
 */
export function seenBy(
  sql: SqlStorageLike,
  key: string,
  row: LedgerRow | undefined,
  holder: LedgerHolder,
  now: number,
): { row: LedgerRow | undefined; cutOff: boolean } {
  const dead = holder.tookOver;
  if (!row || row.result !== undefined || row.leaseExpiresAt <= now || dead === undefined)
    return { row, cutOff: false };
  const made = sql
    .exec("SELECT holder FROM kaboo_claim_holders WHERE key = ? AND token = ?", key, row.token)
    .toArray()[0];
  if (made?.holder !== dead) return { row, cutOff: false };
  return { row: { ...row, leaseExpiresAt: now }, cutOff: true };
}

/** Notes which run made a claim (a row of an earlier claim of the key, by another token, is replaced). */
export function noteHolder(sql: SqlStorageLike, key: string, token: string, holder: LedgerHolder): void {
  sql.exec(
    "INSERT INTO kaboo_claim_holders (key, token, holder) VALUES (?, ?, ?) " +
      "ON CONFLICT(key) DO UPDATE SET token = excluded.token, holder = excluded.holder",
    key,
    token,
    holder.token,
  );
}

/**
 * The lease token of a stored thread record, read from the record itself.
 * @param text - The record's text (`null`: none stored).
 * @returns The token, or `undefined` with no lease (or no readable record).
 */
export function leaseTokenOf(text: string | null): string | undefined {
  if (text === null) return undefined;
  try {
    const lease = (JSON.parse(text) as { lease?: { token?: unknown } | null }).lease;
    return typeof lease?.token === "string" ? lease.token : undefined;
  } catch {
    return undefined;
  }
}
