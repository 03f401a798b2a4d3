/**
 * A Stop for a thread's current run: the only thing that cancels a run at the edge (a client
 * that goes away does not). The body is `{ "kaboo_cancel": { "threadId": "…", "runId"?: "…" } }`,
 * POSTed to the handler's URL with the same credentials as the runs. The run ends with the AG-UI
 * `cancelled` outcome at its next safe point. A call already executing has its signal aborted; one that
 * ends within the agent's `toolGraceMs` is recorded as it ended, and one that does not is abandoned: the
 * run ends asking whether it went through (see safe-stop.ts), and the thread is free.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { sizedString } from "../../../agent/shared/lean-schemas.js";
import type { ThreadRecord, ThreadStore } from "../../../stores/thread-store.js";
import { liveRuns, untilDecided } from "./live-runs.js";

/** Key of a Stop request's body. */
export const CANCEL_KEY = "kaboo_cancel";

const cancelSchema = z.object({
  [CANCEL_KEY]: z.object({ threadId: sizedString(1), runId: z.optional(z.string()) }),
});

/** What the handler answers to a Stop: an HTTP status and a JSON body. */
export interface CancelAnswer {
  status: 202 | 400 | 403 | 409;
  body: Record<string, unknown>;
}

/**
 * Whether a parsed body is a Stop request (has the {@link CANCEL_KEY} key) rather than a run.
 *
 * @param body - The parsed JSON body.
 * @returns `true` for a Stop.
 */
export function isCancelBody(body: unknown): boolean {
  return typeof body === "object" && body !== null && !Array.isArray(body) && Object.hasOwn(body, CANCEL_KEY);
}

/**
 * Asks the thread's current run to stop, and records the Stop in the run's lease before it answers
 * (in a Durable Object the answer waits for the write: its output gate holds it until stored). In
 * this isolate the run hears it at once; a run that another isolate holds finds it on its next
 * lease renewal (a third of the run lease); and a run that died before its safe point and is run
 * again (the object's alarm, the same request sent to another process) finds it when it takes the
 * thread, and starts nothing new (see safe-stop.ts). The Stop is the
 * run's: it names the run's id in its lease, and goes when the run ends (the lease with it).
 *
 * @param body - The parsed body (untrusted).
 * @param o - The handler's `store` (none: 400), the request's `principal`, the clock.
 * @returns 202 `{ cancelling: { threadId, runId } }`; 400 for a malformed body or no store; 403 when
 *   the thread is another person's; 409 `no_run` when no run holds the thread (or not that `runId`).
 */
export async function cancelRun(
  body: unknown,
  o: { store: ThreadStore | undefined; principal: string | undefined; now?: () => number },
): Promise<CancelAnswer> {
  const parsed = cancelSchema.safeParse(body);
  if (!parsed.success)
    return fail(400, "invalid_cancel", `A Stop is { "${CANCEL_KEY}": { "threadId": string, "runId"?: string } }.`);
  if (!o.store) return fail(400, "cancel_needs_store", "Runs can be stopped only on a handler with a thread store.");
  const { threadId, runId } = parsed.data[CANCEL_KEY];
  const now = o.now ?? Date.now;
  // A hosted run that sent RUN_STARTED and has not read its thread yet is found once it has.
  await untilDecided(o.store, threadId);
  const here = liveRuns(o.store).get(threadId);
  if (here && !here.hub.ended) {
    if (here.principal !== undefined && here.principal !== o.principal) return forbidden();
    if (runId !== undefined && runId !== here.runId) return noRun(threadId);
    here.stop.request();
    // The lease is this run's, or a dead run's of the same id that this one runs again. A run that
    // has not written its lease yet writes it with the Stop in it (see storedRun).
    const recorded = await recordStop(o.store, threadId, here.runId, () => null, now);
    // No lease of the run's any more: it wrote its end before the Stop (its outcome stands).
    if (typeof recorded !== "string" && here.taking !== true) return noRun(threadId);
    return { status: 202, body: { cancelling: { threadId, runId: here.runId } } };
  }
  const found = await recordStop(
    o.store,
    threadId,
    runId,
    (record) => (record.owner !== null && record.owner !== o.principal ? forbidden() : null),
    now,
  );
  return typeof found === "string" ? { status: 202, body: { cancelling: { threadId, runId: found } } } : found;
}

/**
 * Writes `cancel: true` into the thread's lease (of `runId`, when given). A lease that ran out counts:
 * its run died before its end and may be run again under its id (a hosting object's alarm will), and
 * then it starts stopped; a run of another id takes the thread with a lease of its own.
 *
 * @returns The run's id once its lease says so; the refusal `refuse` finds in the record; else 409.
 */
async function recordStop(
  store: ThreadStore,
  threadId: string,
  runId: string | undefined,
  refuse: (record: ThreadRecord) => CancelAnswer | null,
  now: () => number,
): Promise<string | CancelAnswer> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const record = await store.load(threadId);
    const refused = refuse(record);
    if (refused) return refused;
    const lease = record.lease;
    if (!lease || (runId !== undefined && runId !== lease.runId)) return noRun(threadId);
    if (lease.cancel === true) return lease.runId;
    const next = { ...record, lease: { ...lease, cancel: true }, updatedAt: now() };
    if (await store.compareAndSet(threadId, record.version, next)) return lease.runId;
  }
  return noRun(threadId);
}

function fail(status: 400 | 403 | 409, error: string, detail: string): CancelAnswer {
  return { status, body: { error, detail } };
}

function forbidden(): CancelAnswer {
  return fail(403, "forbidden", "This thread belongs to someone else.");
}

function noRun(threadId: string): CancelAnswer {
  return fail(409, "no_run", `No run of thread ${JSON.stringify(threadId)} is going on now.`);
}
