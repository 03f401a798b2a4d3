/**
 * Reattach: a client that lost a run's stream gets every event it missed, then the live tail.
 * POST `{ "kaboo_connect": { "threadId": "…", "runId"?: "…", "after"?: n, "attempt"?: k } }`, or the
 * same with a `Last-Event-ID: <runId>:<n>` header (the `id:` of the last SSE frame it read; a run
 * again's are `<runId>:<n>.<k>`, and `attempt` is that k, 0 by default). The answer is the run's SSE
 * stream from event n + 1 (from its start without `after`), or from its start when event n is one a
 * dead attempt sent but never logged and a later attempt took its place (see attempts.ts): a run again,
 * or the RUN_ERROR `RUN_NOT_RESUMED` a host that gave the run up logged, which counts as an attempt of
 * its own (from its own id: nothing more, the run ended); without `runId`, the thread's current (or
 * latest) run. Any client of the thread's principal may watch.
 *
 * @module
 */
import type { AGUIEvent } from "@ag-ui/core";
import * as z from "zod/v4/mini";
import { sizedString } from "../../../agent/shared/lean-schemas.js";
import type { ThreadStore } from "../../../stores/thread-store.js";
import { liveRuns, untilDecided } from "./live-runs.js";
import { type LoggedEvent, loggedRun } from "./event-log.js";
import { idTooLong } from "../request/limits.js";
import { eventId, parseEventId } from "./run-hub.js";

/** Key of a reattach request's body. */
export const CONNECT_KEY = "kaboo_connect";

const connectSchema = z.object({
  [CONNECT_KEY]: z.object({
    threadId: sizedString(1),
    runId: z.optional(z.string()),
    after: z.optional(z.int().check(z.gte(-1))),
    attempt: z.optional(z.int().check(z.gte(0))),
  }),
});

/** What a reattach request found: the events to stream, or an HTTP error. */
export type ConnectAnswer =
  | { events: AsyncIterable<AGUIEvent>; idOf: (event: AGUIEvent) => string | undefined }
  | { status: 400 | 403 | 404; body: Record<string, unknown> };

/**
 * Whether a parsed body is a reattach request.
 *
 * @param body - The parsed JSON body.
 * @returns `true` when it has the {@link CONNECT_KEY} key.
 */
export function isConnectBody(body: unknown): boolean {
  return typeof body === "object" && body !== null && !Array.isArray(body) && Object.hasOwn(body, CONNECT_KEY);
}

/**
 * Finds the run a client reattaches to and the events it missed.
 *
 * @param body - The parsed body (untrusted).
 * @param o - The handler's `store`, the request's `principal` and its `Last-Event-ID` header.
 * @returns The events from the first one missed, or 400 (malformed, no store), 403 (another
 *   person's thread), 404 `no_run` (no such run here, or it ended too long ago).
 */
export async function connectRun(
  body: unknown,
  o: { store: ThreadStore | undefined; principal: string | undefined; lastEventId: string | null },
): Promise<ConnectAnswer> {
  const parsed = connectSchema.safeParse(body);
  if (!parsed.success)
    return fail(
      400,
      "invalid_connect",
      `A reattach is { "${CONNECT_KEY}": { "threadId": string, "runId"?: string, "after"?: int, "attempt"?: int } }.`,
    );
  if (!o.store)
    return fail(400, "connect_needs_store", "Runs can be reattached to only on a handler with a thread store.");
  const ask = parsed.data[CONNECT_KEY];
  const last = o.lastEventId === null ? undefined : parseEventId(o.lastEventId.trim());
  // Its run id keys the thread's event log as a body's does: bounded the same way (Deno KV keys: 2 KiB).
  if (o.lastEventId !== null && (!last || idTooLong(last.runId))) return badId();
  const runId = last?.runId ?? ask.runId;
  const from = last ?? { index: ask.after ?? -1, attempt: ask.attempt ?? 0 };
  // A hosted run that sent RUN_STARTED and has not read its thread yet is found once it has.
  await untilDecided(o.store, ask.threadId);
  const here = liveRuns(o.store).get(ask.threadId);
  const owner = here?.principal ?? (await o.store.load(ask.threadId)).owner ?? undefined;
  if (owner !== undefined && owner !== o.principal)
    return fail(403, "forbidden", "This thread belongs to someone else.");
  if (here && (runId === undefined || here.runId === runId)) {
    const hub = here.hub;
    const events = hub.watchFrom(from, last !== undefined);
    if (events) return { events, idOf: (e) => hub.idOf(e) };
    // An event this isolate's attempt did not send (a run again elsewhere took the thread over): the log tells.
  }
  // Not live here: another isolate runs it, or ran it. The thread's log has its events.
  const logRun = runId ?? (await o.store.load(ask.threadId)).lease?.runId;
  const logged =
    logRun === undefined
      ? undefined
      : await loggedRun({ store: o.store, threadId: ask.threadId, runId: logRun, from, strict: last !== undefined });
  if (logged === "invalid") return badFrom(last !== undefined);
  if (!logged || logRun === undefined) {
    const which = runId === undefined ? "" : `${JSON.stringify(runId)} `;
    return fail(404, "no_run", `No run ${which}of this thread can be reattached to.`);
  }
  return withIds(logged, logRun);
}

/** Logged events as an event stream and their SSE ids. */
function withIds(source: AsyncIterable<LoggedEvent>, runId: string): ConnectAnswer {
  const ids = new WeakMap<AGUIEvent, string>();
  async function* events(): AsyncGenerator<AGUIEvent> {
    for await (const { index, event, attempt } of source) {
      ids.set(event, eventId(runId, index, attempt));
      yield event;
    }
  }
  return { events: events(), idOf: (e) => ids.get(e) };
}

/** No attempt of the run sent the event a reattach names (its `Last-Event-ID`, or its body's `after` and `attempt`). */
function badFrom(header: boolean): ConnectAnswer {
  return header ? badId() : fail(400, "invalid_connect", "No attempt of this run sent such an event.");
}

function badId(): ConnectAnswer {
  return fail(400, "invalid_last_event_id", "Last-Event-ID is not an id this handler sent.");
}

function fail(status: 400 | 403 | 404, error: string, detail: string): ConnectAnswer {
  return { status, body: { error, detail } };
}
