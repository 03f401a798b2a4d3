/**
 * The table `kaboo_hosted_runs` that `PostgresRunHost` keeps its runs' requests in: its statements,
 * a kept request read back, and what giving up on a run that cannot be run again writes.
 *
 * @module
 */
import type { Logger } from "../../logger.js";
import { RunNotResumedError, runNotResumedEvent } from "../run-again.js";
import { decodeThread, encodeThread, type ThreadRecord } from "../thread-store.js";
import { appendEvents, readEvents } from "./events.js";
import { pgStep, type PgQueryable, type PgRow } from "./queryable.js";

/** How many kept requests one sweep reads at most. */
export const BATCH = 100;

/** Keeps a run's request with the token of the lease that holds the thread now, if that lease is still the run's. */
export const KEEP =
  "INSERT INTO kaboo_hosted_runs (thread_id, run_id, token, url, body, principal, kept_at) " +
  "SELECT thread_id, $2, holder, $3, $4, $5, $6::bigint FROM kaboo_threads " +
  "WHERE thread_id = $1 AND holder IS NOT NULL AND body::json #>> '{lease,runId}' = $2 " +
  "ON CONFLICT (thread_id) DO UPDATE SET run_id = excluded.run_id, token = excluded.token, url = excluded.url, " +
  "body = excluded.body, principal = excluded.principal, kept_at = excluded.kept_at, swept_at = NULL";

/**
 * The kept requests whose run's hold lapsed and that no sweeper took within `leaseMs`. A thread's
 * `lease_expires_at` is written with its record (`null`: no lease, never matches); each match is
 * checked again against the record itself before it runs.
 */
export const LAPSED =
  "SELECT h.thread_id, h.run_id, h.token, h.url, h.body, h.principal FROM kaboo_hosted_runs h " +
  "JOIN kaboo_threads t ON t.thread_id = h.thread_id AND t.holder = h.token " +
  "WHERE t.lease_expires_at <= $1::bigint AND (h.swept_at IS NULL OR h.swept_at <= $2::bigint) " +
  `ORDER BY h.kept_at LIMIT ${BATCH}`;

/** Marks a kept request swept, unless another sweeper did within `leaseMs`: one sweeper runs it. */
export const MARK =
  "UPDATE kaboo_hosted_runs SET swept_at = $3::bigint WHERE thread_id = $1 AND token = $2 AND (swept_at IS NULL OR swept_at <= $4::bigint) RETURNING 1 AS ok";

/** A kept request: the run's thread, id and token (its lease), and what runs it again. */
export interface Kept {
  threadId: string;
  runId: string;
  token: string;
  url: string;
  body: string;
  principal: string | undefined;
}

/** The thread's record as stored (`undefined`: none). */
export async function loadThread(db: PgQueryable, threadId: string): Promise<ThreadRecord | undefined> {
  const { rows } = await pgStep("thread read", () =>
    db.query("SELECT body FROM kaboo_threads WHERE thread_id = $1", [threadId]),
  );
  const body = rows[0]?.body;
  return typeof body === "string" ? decodeThread(body) : undefined;
}

/**
 * Ends a run the sweeper could not run again: its open calls cut off, the thread freed (if the dead
 * run still holds it), the request dropped, its log ended with {@link RunNotResumedError} (a log
 * begun with its RUN_STARTED when the run died before it logged anything).
 */
export async function giveUp(
  o: { db: PgQueryable; now: () => number; log: Logger },
  kept: Kept,
  record: ThreadRecord,
  why: string,
): Promise<void> {
  const now = o.now();
  const { threadId, runId, token } = kept;
  await pgStep("hosted run give-up", async () => {
    await o.db.query(
      "UPDATE kaboo_ledger SET lease_expires_at = $3::bigint WHERE thread_id = $1 AND holder = $2 AND result IS NULL AND lease_expires_at > $3::bigint",
      [threadId, token, now],
    );
    const body = encodeThread(record.version + 1, { ...record, lease: null, updatedAt: now });
    await o.db.query(
      "UPDATE kaboo_threads SET version = version + 1, body = $3, holder = NULL, lease_expires_at = NULL WHERE thread_id = $1 AND version = $2::integer AND holder = $4",
      [threadId, record.version, body, token],
    );
    await o.db.query("DELETE FROM kaboo_hosted_runs WHERE thread_id = $1 AND token = $2", [threadId, token]);
  });
  const error = new RunNotResumedError(
    `The run died with its process and could not be run again (${why}); send it again.`,
  );
  const logged = await readEvents(o.db, threadId, runId, -1);
  const event = runNotResumedEvent(error, record.lease?.attempt, now);
  // A run that died before its first batch was logged gets a log of its own end, so a client that
  // reattaches by its id learns why (rather than that there is no such run).
  if (!logged) await appendEvents(o.db, o.now, threadId, runId, 0, [started(threadId, runId, now), event], true);
  else if (!logged.ended) await appendEvents(o.db, o.now, threadId, runId, logged.events.length, [event], true);
  o.log.error("kaboo: a hosted run that died was refused when run again; its thread is free", { runId, why });
}

/** The RUN_STARTED a run's log begins with. */
function started(threadId: string, runId: string, timestamp: number) {
  return { type: "RUN_STARTED", threadId, runId, timestamp };
}

/** Whether the thread is held by the kept run (its token and run id), and its hold ran out. */
export function lapsed(record: ThreadRecord | undefined, kept: Kept, now: number): record is ThreadRecord {
  const lease = record?.lease;
  return lease?.token === kept.token && lease.runId === kept.runId && lease.expiresAt <= now;
}

/** A row of `kaboo_hosted_runs`. */
export function keptOf(row: PgRow): Kept {
  return {
    threadId: String(row.thread_id),
    runId: String(row.run_id),
    token: String(row.token),
    url: String(row.url),
    body: String(row.body),
    principal: typeof row.principal === "string" ? row.principal : undefined,
  };
}
