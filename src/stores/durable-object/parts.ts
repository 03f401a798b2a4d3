/**
 * Long texts on a Durable Object's SQLite storage, which refuses a string over 2 MB: a value keeps
 * its first part in its own row and the rest in `kaboo_parts`, under its owner (`thread`, `ledger`,
 * `event` or `meta`), its key and a sub-key. The writes go in the same synchronous step as the row's, so
 * the object commits them together.
 *
 * @module
 */
import type { SqlStorageLike } from "./sql.js";

/** The table of parts past the first. */
export const PARTS_SCHEMA =
  "CREATE TABLE IF NOT EXISTS kaboo_parts (owner TEXT NOT NULL, key TEXT NOT NULL, sub INTEGER NOT NULL, " +
  "part_no INTEGER NOT NULL, part TEXT NOT NULL, PRIMARY KEY (owner, key, sub, part_no))";

/** Who a part belongs to (`meta`: a value the object keeps beside its thread, such as a hosted run's request). */
export type PartOwner = "thread" | "ledger" | "event" | "meta";

/** UTF-16 units a stored part holds: at most 1.5 MB as UTF-8, under the 2 MB SQLite value limit. */
const PART_UNITS = 500_000;

/**
 * A text cut into stored parts, never between the two halves of a surrogate pair.
 * @param text - The value's text.
 * @returns Its parts (one, `""`, for an empty text).
 */
export function textParts(text: string): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length || parts.length === 0; ) {
    let end = Math.min(at + PART_UNITS, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    parts.push(text.slice(at, end));
    at = end;
  }
  return parts;
}

/**
 * Replaces the parts past the first of one value.
 * @param sql - The object's SQL storage.
 * @param owner - Whose value.
 * @param key - Its key (`""` for the thread).
 * @param sub - Its sub-key (an event's index; else 0).
 * @param rest - Its parts after the first (none: the value fits its row).
 */
export function writeParts(
  sql: SqlStorageLike,
  owner: PartOwner,
  key: string,
  sub: number,
  rest: readonly string[],
): void {
  sql.exec("DELETE FROM kaboo_parts WHERE owner = ? AND key = ? AND sub = ?", owner, key, sub);
  for (const [i, part] of rest.entries())
    sql.exec(
      "INSERT INTO kaboo_parts (owner, key, sub, part_no, part) VALUES (?, ?, ?, ?, ?)",
      owner,
      key,
      sub,
      i,
      part,
    );
}

/**
 * The parts past the first of the values of one key, by sub-key, from `afterSub` on.
 * @returns Sub-key → the rest of that value's text (absent: the value fits its row).
 */
export function readParts(sql: SqlStorageLike, owner: PartOwner, key: string, afterSub = -1): Map<number, string> {
  const rows = sql
    .exec(
      "SELECT sub, part FROM kaboo_parts WHERE owner = ? AND key = ? AND sub > ? ORDER BY sub, part_no",
      owner,
      key,
      afterSub,
    )
    .toArray();
  const out = new Map<number, string>();
  for (const r of rows) out.set(Number(r.sub), (out.get(Number(r.sub)) ?? "") + String(r.part));
  return out;
}

/** Drops every part of a key (a ledger row released, a run's events compacted). */
export function deleteParts(sql: SqlStorageLike, owner: PartOwner, key: string): void {
  sql.exec("DELETE FROM kaboo_parts WHERE owner = ? AND key = ?", owner, key);
}
