/**
 * The runs a `KabooThread` hosts: the request forwarded to the object is served by the
 * host's handler on the object's own store, its request is kept (without headers) while it runs,
 * and the object's alarm runs it again if it died with the object.
 *
 * Nothing of a run is kept before it has taken its thread: the kept request and the alarm are
 * written in the same turn as the run's lease (one commit), after RUN_STARTED went out, so the
 * first byte does not wait for the object's output gate, and a request refused before it takes the
 * thread (a second run while one runs) does not replace the request of the run that holds it.
 *
 * @module
 */
import { describe } from "../../errors.js";
import { defaultLogger, type Logger } from "../../logger.js";
import type { DurableObjectStateLike } from "./binding.js";
import type { SqlThreadStore } from "./sql.js";
import { type HostedRequestRead, markReplayed, onHostedRequest, onHostedRun } from "../hosted-request.js";
import { refusalOf, RunNotResumedError, runNotResumedEvent } from "../run-again.js";

export { RunNotResumedError } from "../run-again.js";
import { liveLease, type ThreadRecord, type ThreadStore } from "../thread-store.js";

/** How a `KabooThread` hosts the thread's runs: the handler that serves them, on this object's own store. */
export interface KabooThreadHost {
  /** Makes the request handler (e.g. `createAguiHandler({ stores: { thread: store }, agent, … })`) over this object's store. */
  handler: (store: ThreadStore) => (request: Request) => Promise<Response>;
  /** The handler's `timing.runLeaseMs`: after it without renewal a run is known dead. Default 30 000. */
  leaseMs?: number;
  /** Where the object reports a run it could not run again, or an alarm it could not arm. Default: the console. */
  logger?: Logger;
}

/** The request of the hosted run, kept while it runs so a run that died with the object is run again. */
const HOSTED_RUN_META = "hosted_run";

interface HostedRunRecord {
  runId: string;
  url: string;
  body: string;
  /** Whom the handler found the run is for (`undefined`: a handler without a `principal` lookup). */
  principal?: string | undefined;
}

/** The hosted runs of one thread's object. */
export class HostedRuns {
  readonly #store: SqlThreadStore;
  readonly #ctx: DurableObjectStateLike;
  readonly #host: KabooThreadHost | undefined;
  readonly #log: Logger;
  #handler: ((request: Request) => Promise<Response>) | undefined;

  /**
   * @param store - The object's store.
   * @param ctx - The object's state (for its alarm).
   * @param host - How runs are hosted; none: the object hosts none (404).
   */
  constructor(store: SqlThreadStore, ctx: DurableObjectStateLike, host: KabooThreadHost | undefined) {
    this.#store = store;
    this.#ctx = ctx;
    this.#host = host;
    this.#log = host?.logger ?? defaultLogger;
  }

  /**
   * Serves a request forwarded to the object (a run, a Stop, a reattach).
   *
   * @param request - The forwarded request.
   * @returns The handler's response; 404 when the object hosts no runs.
   */
  async serve(request: Request): Promise<Response> {
    if (!this.#host) return Response.json({ error: "this object does not host runs" }, { status: 404 });
    // The handler reads the body and tells it: the object keeps it once the run takes its thread.
    this.#keepOnceTaken(request, request.url);
    return this.#handle(request);
  }

  /** Notices a hosted run that died with the object, and runs it again (see `KabooThread`). */
  async alarm(): Promise<void> {
    const record = await this.#store.load("");
    const saved = this.#store.meta(HOSTED_RUN_META);
    if (record.lease === null) return this.#store.setMeta(HOSTED_RUN_META, undefined);
    if (liveLease(record, Date.now())) return this.#arm(record.lease.expiresAt);
    this.#store.expireOpenClaims();
    const run = saved === undefined ? undefined : (JSON.parse(saved) as HostedRunRecord);
    if (!run || run.runId !== record.lease.runId || !this.#host) {
      // Nothing to run again: free the thread now rather than when a client next comes.
      this.#store.compareAndSetNow(record.version, { ...record, lease: null, updatedAt: Date.now() });
      return;
    }
    // The client's headers were not kept: the handler takes the person from the mark.
    const again = new Request(run.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: run.body,
    });
    this.#keepOnceTaken(again, run.url);
    const why = await refusalOf(await this.#handle(markReplayed(again, run.principal)));
    // Refused before it took the thread (the lease is still the dead run's): every later alarm
    // would run it again to the same refusal. The alarm gives up and says why.
    const after = await this.#store.load("");
    if (after.lease?.token === record.lease.token) this.#giveUp(after, run.runId, why);
  }

  /**
   * Keeps the run's request, without its headers (credentials), and arms the alarm, in the turn its
   * run takes the thread. The person kept is the one the handler found; a run again is for them.
   */
  #keepOnceTaken(request: Request, url: string): void {
    let read: HostedRequestRead | undefined;
    onHostedRequest(request, (r) => {
      read = r;
    });
    onHostedRun(request, {
      // The response has sent RUN_STARTED by now: the handler begins a hosted run once its response
      // took it (a write before then would hold the bytes until it is stored).
      // The alarm is armed in the turn of the lease, before it: an alarm without a run finds none.
      // A hold that ran out first: its run died with this object, and its open claims are cut off
      // calls, ended before this run claims any (its next claim answers "unknown", not "running").
      beforeFirstWrite: async () => {
        const expiresAt = this.#store.leaseExpiresAt();
        if (expiresAt !== undefined && expiresAt <= Date.now()) this.#store.expireOpenClaims();
        this.#arm(Date.now() + (this.#host?.leaseMs ?? 30_000)).catch((error) => {
          this.#log.error("kaboo: could not arm the alarm of a hosted run", { error: describe(error) });
        });
      },
      taken: (runId) => {
        if (read === undefined) return;
        const saved: HostedRunRecord = { runId, url, body: read.body, principal: read.principal };
        this.#store.setMeta(HOSTED_RUN_META, JSON.stringify(saved));
      },
    });
  }

  /** Ends a run the alarm could not run again: the thread freed, the request dropped, its log ended. */
  #giveUp(record: ThreadRecord, runId: string, why: string): void {
    this.#store.compareAndSetNow(record.version, { ...record, lease: null, updatedAt: Date.now() });
    this.#store.setMeta(HOSTED_RUN_META, undefined);
    const error = new RunNotResumedError(
      `The run died with its Durable Object and was refused when run again (${why}); send it again.`,
    );
    const logged = this.#store.readEventsNow(runId, -1);
    if (logged && !logged.ended) {
      const event = runNotResumedEvent(error, record.lease?.attempt, Date.now());
      this.#store.appendEventsNow(runId, logged.events.length, [event], true);
    }
    this.#log.error("kaboo: a hosted run that died was refused when run again; its thread is free", { runId, why });
  }

  async #handle(request: Request): Promise<Response> {
    this.#handler ??= this.#host?.handler(this.#store);
    if (!this.#handler) return Response.json({ error: "this object does not host runs" }, { status: 404 });
    return this.#handler(request);
  }

  async #arm(at: number): Promise<void> {
    // A little after the hold would run out, so a live run has renewed it by then.
    await this.#ctx.storage.setAlarm?.(at + 1_000);
  }
}
