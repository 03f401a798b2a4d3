/**
 * Runs that outlive their Node process: {@link PostgresRunHost} serves the handler's requests as a
 * Durable Object hosts its thread's runs (the same hooks, see `hosted-request.ts`): once a run has
 * taken its thread, its request is kept in `kaboo_hosted_runs` without its headers (credentials),
 * with whom it is for. Its sweeper runs again, once, the kept request of a run whose hold lapsed
 * (its process died), as the object's alarm does: the handler takes the thread over under the same
 * run id, the dead attempt's open claims read `unknown` (the person is asked "did this go through?"),
 * and the run's log goes on where the dead attempt left it.
 *
 * Exactly once across sweepers: a sweeper first marks the kept request swept (a compare-and-set on
 * its row and the dead run's token); the run again then takes the thread by the thread record's own
 * compare-and-set, as any request would. A sweeper that died after marking it is followed by another
 * once `leaseMs` has passed.
 *
 * @module
 */
import { describe, UserError } from "../../errors.js";
import { defaultLogger, type Logger } from "../../logger.js";
import { type HostedRequestRead, markReplayed, onHostedRequest, onHostedRun } from "../hosted-request.js";
import { refusalOf } from "../run-again.js";
import { giveUp, KEEP, type Kept, keptOf, LAPSED, lapsed, loadThread, MARK } from "./hosted-runs.js";
import { needs, pgStep, type PgQueryable } from "./queryable.js";

/** What a serverless host passes with a request (its `waitUntil`): {@link PostgresRunHost.fetch} hands it to the handler. */
export interface RunHostContext {
  /** Keeps the function alive until `promise` settles. */
  waitUntil?(promise: Promise<unknown>): void;
}

/** Options of {@link PostgresRunHost}. */
export interface PostgresRunHostOptions {
  /** The request handler (`createAguiHandler({ stores: { thread: new PostgresThreadStore(db) }, … })`) on the same database. */
  handler: (request: Request, context?: RunHostContext) => Promise<Response>;
  /** The handler's `timing.runLeaseMs`: after it without renewal a run is known dead. Default 30 000. */
  leaseMs?: number;
  /**
   * How many times the sweeper runs a run again under its id; a run that died on its last allowed
   * attempt (one that kills every process that runs it) is given up instead. Default 3.
   */
  maxAttempts?: number;
  /** Where the sweeper reports a run it could not run again, or a request it could not keep. Default: the console. */
  logger?: Logger;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** What one {@link PostgresRunHost.sweep} did, by thread id. */
export interface SweepResult {
  /** Threads whose run this sweep ran again (to its end or its next pause). */
  ran: string[];
  /** Threads whose run was refused when run again, or out of attempts: freed, their run's log ended with RUN_NOT_RESUMED. */
  gaveUp: string[];
}

/** A sweeper started by {@link PostgresRunHost.startSweeper}. */
export interface RunSweeper {
  /** Stops sweeping; resolves once the runs it began again have ended. */
  stop(): Promise<void>;
}

/**
 * Serves a handler on the PostgreSQL store so that a run whose process died is run again by another
 * process: serve {@link PostgresRunHost.fetch} instead of the handler, and start the sweeper in every
 * process ({@link PostgresRunHost.startSweeper}), or call {@link PostgresRunHost.sweep} from a cron.
 *
 * @example
 * ```ts
 * const db = fromNodePostgres(new pg.Pool({ connectionString: databaseUrl }));
 * await migrate(db);
 * const handler = createAguiHandler({ agent, stores: { thread: new PostgresThreadStore(db) } });
 * const host = new PostgresRunHost(db, { handler });
 * serve({ fetch: (request) => host.fetch(request), port: 8787 }); // @hono/node-server
 * const sweeper = host.startSweeper({ everyMs: 10_000 });
 * ```
 */
export class PostgresRunHost {
  readonly #db: PgQueryable;
  readonly #handler: (request: Request, context?: RunHostContext) => Promise<Response>;
  readonly #leaseMs: number;
  readonly #maxAttempts: number;
  readonly #log: Logger;
  readonly #now: () => number;
  /** The runs this host is running again, by thread. */
  readonly #running = new Map<string, Promise<"ran" | "gaveUp" | undefined>>();
  readonly #writes = new Set<Promise<void>>();

  /**
   * @param db - The database (`migrate(db)` run once before), the one the handler's store is on.
   * @param options - The `handler`, its `leaseMs`, `maxAttempts`, a `logger`, a clock.
   * @throws {UserError} When `db` is not a database from an adapter, or an option is not what it says.
   */
  constructor(db: PgQueryable, options: PostgresRunHostOptions) {
    needs(db, ["query", "transaction"], "PostgresRunHost needs a database from one of the adapters");
    if (typeof options?.handler !== "function")
      throw new UserError("PostgresRunHost needs `handler`: the request handler (createAguiHandler(…)).");
    const leaseMs = options.leaseMs ?? 30_000;
    if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0)
      throw new UserError(`PostgresRunHost's leaseMs must be a positive integer of ms; got ${String(leaseMs)}.`);
    this.#db = db;
    this.#handler = options.handler;
    const maxAttempts = options.maxAttempts ?? 3;
    if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 0)
      throw new UserError(`PostgresRunHost's maxAttempts must be a whole number; got ${String(maxAttempts)}.`);
    this.#leaseMs = leaseMs;
    this.#maxAttempts = maxAttempts;
    this.#log = options.logger ?? defaultLogger;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Serves a request (a run, a Stop, a reattach) with the handler, keeping a run's request once the
   * run has taken its thread. Its RUN_STARTED goes out before the run reads its thread, as in a
   * hosting Durable Object.
   *
   * @param request - The client's request.
   * @param context - A serverless host's context (its `waitUntil`), handed to the handler as is.
   * @returns The handler's response.
   */
  readonly fetch = (request: Request, context?: RunHostContext): Promise<Response> => {
    this.#keepOnceTaken(request, request.url);
    return context === undefined ? this.#handler(request) : this.#handler(request, context);
  };

  /**
   * Runs again, once, every run whose hold lapsed and whose request is kept (at most 100 a sweep),
   * and drops the kept requests of runs that ended.
   *
   * @returns The threads whose run it ran again, once those runs have ended or paused.
   * @throws {ThreadStoreError} When the database fails.
   */
  async sweep(): Promise<SweepResult> {
    const runs = await this.#begin();
    const result: SweepResult = { ran: [], gaveUp: [] };
    for (const [threadId, run] of runs) {
      const done = await run;
      if (done) result[done].push(threadId);
    }
    return result;
  }

  /**
   * Sweeps every `everyMs` until stopped or `signal` aborts. A run it begins again runs on while
   * later sweeps go on.
   *
   * @param o - `everyMs` (default half of `leaseMs`), `signal`.
   * @returns The sweeper.
   * @throws {UserError} When `everyMs` is not a positive integer.
   */
  startSweeper(o: { everyMs?: number; signal?: AbortSignal } = {}): RunSweeper {
    const everyMs = o.everyMs ?? Math.ceil(this.#leaseMs / 2);
    if (!Number.isSafeInteger(everyMs) || everyMs <= 0)
      throw new UserError(`The sweeper's everyMs must be a positive integer of ms; got ${String(everyMs)}.`);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let pass: Promise<unknown> = Promise.resolve();
    const tick = () => {
      pass = this.#begin()
        .catch((error) => this.#log.error("kaboo: a sweep of hosted runs failed", { error: describe(error) }))
        .finally(() => {
          if (!stopped) timer = setTimeout(tick, everyMs);
        });
    };
    const stop = async () => {
      stopped = true;
      clearTimeout(timer);
      await pass;
      await Promise.all([...this.#running.values(), ...this.#writes]);
    };
    o.signal?.addEventListener("abort", () => void stop(), { once: true });
    if (!o.signal?.aborted) timer = setTimeout(tick, 0);
    return { stop };
  }

  /** Drops the kept requests of ended runs, and begins again each lapsed run another sweeper did not take. */
  async #begin(): Promise<Map<string, Promise<"ran" | "gaveUp" | undefined>>> {
    const now = this.#now();
    const rows = await pgStep("hosted runs sweep", async () => {
      await this.#db.query(
        "DELETE FROM kaboo_hosted_runs h WHERE NOT EXISTS (SELECT 1 FROM kaboo_threads t WHERE t.thread_id = h.thread_id AND t.holder = h.token)",
        [],
      );
      return (await this.#db.query(LAPSED, [now, now - this.#leaseMs])).rows;
    });
    const begun = new Map<string, Promise<"ran" | "gaveUp" | undefined>>();
    for (const row of rows) {
      const kept = keptOf(row);
      if (this.#running.has(kept.threadId)) continue;
      const marked = await pgStep("hosted run mark", () =>
        this.#db.query(MARK, [kept.threadId, kept.token, now, now - this.#leaseMs]),
      );
      if (marked.rows.length === 0) continue;
      const run = this.#runAgain(kept)
        .catch((error) => {
          this.#log.error("kaboo: a hosted run could not be run again", { runId: kept.runId, error: describe(error) });
          return undefined;
        })
        .finally(() => this.#running.delete(kept.threadId));
      this.#running.set(kept.threadId, run);
      begun.set(kept.threadId, run);
    }
    return begun;
  }

  /** Runs a kept request again (for the person it was for), and gives up if it was refused. */
  async #runAgain(kept: Kept): Promise<"ran" | "gaveUp" | undefined> {
    // The record itself says the run is dead: its lease, the kept one's, lapsed (read again, whole).
    const dead = await loadThread(this.#db, kept.threadId);
    if (!lapsed(dead, kept, this.#now())) return undefined;
    const attempt = dead.lease?.attempt ?? 0;
    if (attempt >= this.#maxAttempts) {
      const why = `it died on each of its ${attempt + 1} attempts`;
      await giveUp({ db: this.#db, now: this.#now, log: this.#log }, kept, dead, why);
      return "gaveUp";
    }
    // The client's headers were not kept: the handler takes the person from the mark.
    const again = new Request(kept.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: kept.body,
    });
    this.#keepOnceTaken(again, kept.url);
    let why: string;
    try {
      why = await refusalOf(await this.#handler(markReplayed(again, kept.principal)));
    } catch (error) {
      why = `the handler threw: ${describe(error)}`;
    }
    // Refused before it took the thread (the lease is still the dead run's): every later sweep would
    // run it again to the same refusal. The sweeper gives up and says why.
    const after = await loadThread(this.#db, kept.threadId);
    if (!after || !lapsed(after, kept, this.#now())) return "ran";
    await giveUp({ db: this.#db, now: this.#now, log: this.#log }, kept, after, why);
    return "gaveUp";
  }

  /** Keeps the run's request (no headers) in the turn the run took its thread. */
  #keepOnceTaken(request: Request, url: string): void {
    let read: HostedRequestRead | undefined;
    onHostedRequest(request, (r) => {
      read = r;
    });
    onHostedRun(request, {
      // Nothing before the lease: a run that takes the thread over makes the dead run's open claims `unknown`.
      beforeFirstWrite: async () => {},
      taken: (runId) => {
        if (read === undefined) return;
        const write = this.#keep(runId, url, read).finally(() => this.#writes.delete(write));
        this.#writes.add(write);
      },
    });
  }

  async #keep(runId: string, url: string, read: HostedRequestRead): Promise<void> {
    try {
      const threadId = (JSON.parse(read.body) as { threadId?: unknown }).threadId;
      if (typeof threadId !== "string") return;
      await pgStep("hosted run keep", () =>
        this.#db.query(KEEP, [threadId, runId, url, read.body, read.principal ?? null, this.#now()]),
      );
    } catch (error) {
      this.#log.error(
        "kaboo: the request of a hosted run could not be kept; if its process dies, it is not run again",
        {
          runId,
          error: describe(error),
        },
      );
    }
  }
}
