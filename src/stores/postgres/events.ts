/**
 * A thread's event log on PostgreSQL: per run, a row in `kaboo_event_runs` (the next index, when it
 * ended, its last writer) and one row per event in `kaboo_events`. An append reads the run's row
 * `FOR UPDATE` and applies the shared rule (`logWrite`) in the same transaction.
 *
 * @module
 */
import type { JsonValue } from "../../agent/messages/messages.js";
import { type LedgerHolder, logWrite, type LoggedEvents } from "../thread-store.js";
import { EVENTS_CHANNEL, eventsPayload } from "./listen.js";
import { num, pgStep, type PgQuery, type PgQueryable } from "./queryable.js";

/** One try of an append; `undefined` when another first write of the run won (read again). */
async function appendIn(
  tx: PgQuery,
  now: () => number,
  at: { thread: string; run: string },
  from: number,
  events: JsonValue[],
  ended: boolean,
  writer: LedgerHolder | undefined,
  notify: boolean,
): Promise<true | undefined> {
  const key = [at.thread, at.run];
  const run = (
    await tx.query(
      "SELECT next, ended_at, writer FROM kaboo_event_runs WHERE thread_id = $1 AND run_id = $2 FOR UPDATE",
      key,
    )
  ).rows[0];
  const next = run ? num(run.next) : 0;
  const current = typeof run?.writer === "string" ? run.writer : undefined;
  // Only the next batch of the log's writer counts: a batch written again (a retried write) changes nothing.
  const write = logWrite(next, current, from, writer);
  if (!write || (run && run.ended_at !== null)) return true;
  const by = writer?.token ?? current ?? null;
  const endedAt = ended ? now() : null;
  if (!run) {
    const made = await tx.query(
      "INSERT INTO kaboo_event_runs (thread_id, run_id, next, ended_at, writer) VALUES ($1, $2, $3::integer, $4::bigint, $5) ON CONFLICT (thread_id, run_id) DO NOTHING RETURNING 1 AS ok",
      [...key, from + events.length, endedAt, by],
    );
    if (made.rows.length === 0) return undefined;
  } else {
    // A run again that took the log's writer over writes on from where it read the log.
    if (write === "cut")
      await tx.query("DELETE FROM kaboo_events WHERE thread_id = $1 AND run_id = $2 AND idx >= $3::integer", [
        ...key,
        from,
      ]);
    await tx.query(
      "UPDATE kaboo_event_runs SET next = $3::integer, ended_at = $4::bigint, writer = $5 WHERE thread_id = $1 AND run_id = $2",
      [...key, from + events.length, endedAt, by],
    );
  }
  if (events.length)
    await tx.query(
      "INSERT INTO kaboo_events (thread_id, run_id, idx, body) SELECT $1, $2, $3::integer + (o - 1)::integer, e FROM json_array_elements_text($4::text::json) WITH ORDINALITY AS t(e, o)",
      [...key, from, JSON.stringify(events.map((e) => JSON.stringify(e)))],
    );
  // Sent at commit: a reattach waiting in another process reads on at once (see listen.ts).
  const payload = notify ? eventsPayload(at.thread, at.run) : undefined;
  if (payload !== undefined) await tx.query("SELECT pg_notify($1, $2)", [EVENTS_CHANNEL, payload]);
  return true;
}

/**
 * Appends a batch to a run's log (see `ThreadStore.appendEvents`).
 *
 * @param db - The database.
 * @param now - Clock, epoch ms.
 * @param threadId - The thread.
 * @param runId - The run.
 * @param from - The batch's first index.
 * @param events - The batch.
 * @param ended - Whether its last event ends the run.
 * @param writer - The run attempt writing, when known.
 *
 * Where the driver can listen (`db.listen`), the append notifies {@link EVENTS_CHANNEL} in its transaction.
 */
export function appendEvents(
  db: PgQueryable,
  now: () => number,
  threadId: string,
  runId: string,
  from: number,
  events: JsonValue[],
  ended: boolean,
  writer?: LedgerHolder,
): Promise<void> {
  const at = { thread: threadId, run: runId };
  return pgStep("event log append", async () => {
    for (let attempt = 0; attempt < 8; attempt++)
      if (await db.transaction((tx) => appendIn(tx, now, at, from, events, ended, writer, db.listen !== undefined)))
        return;
  });
}

/**
 * A run's logged events after `after`, read in one statement (one snapshot).
 *
 * @returns The events and whether the run ended, or `undefined` when nothing of it is logged.
 */
export function readEvents(
  db: PgQueryable,
  threadId: string,
  runId: string,
  after: number,
): Promise<LoggedEvents | undefined> {
  return pgStep("event log read", async () => {
    const { rows } = await db.query(
      "SELECT r.ended_at, e.body FROM kaboo_event_runs r LEFT JOIN kaboo_events e ON e.thread_id = r.thread_id AND e.run_id = r.run_id AND e.idx > $3::bigint " +
        "WHERE r.thread_id = $1 AND r.run_id = $2 ORDER BY e.idx",
      [threadId, runId, after],
    );
    const first = rows[0];
    if (!first) return undefined;
    const events = rows.filter((r) => typeof r.body === "string").map((r) => JSON.parse(r.body as string) as JsonValue);
    return { events, ended: first.ended_at !== null };
  });
}

/**
 * Drops the logs of the thread's runs that ended before `before`, in one statement.
 */
export function compactEvents(db: PgQueryable, threadId: string, before: number): Promise<void> {
  return pgStep("event log compaction", async () => {
    await db.query(
      "WITH old AS (DELETE FROM kaboo_event_runs WHERE thread_id = $1 AND ended_at IS NOT NULL AND ended_at < $2::bigint RETURNING run_id) " +
        "DELETE FROM kaboo_events WHERE thread_id = $1 AND run_id IN (SELECT run_id FROM old)",
      [threadId, before],
    );
  });
}
