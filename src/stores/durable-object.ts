/**
 * `kaboo-workflows/stores/durable-object`: threads kept in Cloudflare Durable Objects, one object
 * per thread (`idFromName(threadId)`), on the SQLite-backed storage API. A Durable Object runs one
 * request at a time and its SQL runs synchronously inside it, so a compare-and-set and a claim
 * (`INSERT … ON CONFLICT DO NOTHING RETURNING`) are atomic across every isolate of the Worker.
 *
 * The Worker exports {@link KabooThread} and binds it with `new_sqlite_classes`; the handler gets a
 * {@link DurableObjectThreadStore} over the binding. Types are structural (no Workers types needed).
 *
 * @module
 */
import { SqlThreadStore } from "./durable-object-sql.js";
import { liveLease, type ThreadStore } from "./thread-store.js";
import type { DurableObjectStateLike, Op } from "./durable-object-binding.js";
import { HOSTED_RUN_PATH } from "./durable-object-binding.js";
import { AUDIT_SCHEMA, applyAuditOp, isAuditOp, type AuditOp } from "./durable-object-audit.js";
import { markReplayed, onHostedPrincipal } from "./hosted-request.js";

export { DurableObjectAuditLog } from "./durable-object-audit.js";
export { DurableObjectGrantStore, KabooGrants } from "./durable-object-grants.js";
export type { DurableObjectGrantStoreOptions, GrantsNamespaceLike } from "./durable-object-grants.js";
export { PrincipalGrantStore, grantsAuditThread } from "./principal-grants.js";
export type { PrincipalGrantBackend, PrincipalGrantStoreOptions } from "./principal-grants.js";
export type { DurableObjectAuditLogOptions } from "./durable-object-audit.js";

export { DEFAULT_BUSY_TIMEOUT_MS, StoreBusyError } from "./busy.js";
export { InvalidThreadRecordError, MAX_ANSWERED, THREAD_RECORD_FORMAT, ThreadStoreError } from "./thread-store.js";
export type * from "./thread-store-types.js";
export { SqlThreadStore } from "./durable-object-sql.js";
export type { SqlStorageLike } from "./durable-object-sql.js";
export { HOSTED_RUN_PATH } from "./durable-object-binding.js";
export type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStubLike,
} from "./durable-object-binding.js";
export { DurableObjectThreadStore } from "./durable-object-client.js";
export type { DurableObjectThreadStoreOptions } from "./durable-object-client.js";

/** How a {@link KabooThread} hosts the thread's runs: the handler that serves them, on this object's own store. */
export interface KabooThreadHost {
  /** Makes the request handler (e.g. `createAguiHandler({ store, agent, … })`) over this object's store. */
  handler: (store: ThreadStore) => (request: Request) => Promise<Response>;
  /** The handler's `runLeaseMs`: after it without renewal a run is known dead. Default 30 000. */
  leaseMs?: number;
}

/** The request of the hosted run, kept while it runs so a run that died with the object is run again. */
const HOSTED_RUN_META = "hosted_run";

/**
 * The Durable Object class of one thread. Export it from your Worker and bind it:
 *
 * ```toml
 * [[durable_objects.bindings]]
 * name = "KABOO_THREAD"
 * class_name = "KabooThread"
 * [[migrations]]
 * tag = "v1"
 * new_sqlite_classes = ["KabooThread"]
 * ```
 *
 * It answers the store operations of {@link DurableObjectThreadStore}. Given a {@link KabooThreadHost}
 * (subclass it and pass one to `super`), it also hosts the thread's runs: the Worker forwards each
 * request here, the run uses this object's storage with no round trip, and it goes on when the
 * client goes away (the request only watches it). While a run lives an alarm is armed; if the run
 * died with the object (evicted, crashed, redeployed), the alarm finds its hold expired, ends the
 * lease of each call it had claimed without a result (calls claimed from outside the object, e.g.
 * by a stateless handler sharing this ledger, keep their own lease), and runs the same request
 * again: the approved call becomes the `outcome_unknown` question, a cut model turn is asked again.
 * The request is kept without its headers (no credentials in storage): it runs again for the person
 * the handler found the first time, and the handler's `agent` and `prepare` see a request that
 * carries only its body.
 *
 * @example
 * ```ts
 * import { KabooThread as KabooThreadBase } from "kaboo-workflows/stores/durable-object";
 * export class KabooThread extends KabooThreadBase {
 *   constructor(ctx: DurableObjectState, env: Env) {
 *     super(ctx, env, { handler: (store) => createAguiHandler({ store, agent: () => makeAgent(env) }) });
 *   }
 * }
 * ```
 */
export class KabooThread {
  readonly #store: SqlThreadStore;
  readonly #ctx: DurableObjectStateLike;
  readonly #host: KabooThreadHost | undefined;
  #handler: ((request: Request) => Promise<Response>) | undefined;

  /**
   * @param ctx - The Durable Object state (SQLite-backed storage).
   * @param _env - The Worker's env (unused here; a subclass reads it).
   * @param host - How to host runs. Default: none (store operations only).
   */
  constructor(ctx: DurableObjectStateLike, _env?: unknown, host?: KabooThreadHost) {
    this.#ctx = ctx;
    this.#store = new SqlThreadStore(ctx.storage.sql);
    ctx.storage.sql.exec(AUDIT_SCHEMA);
    this.#host = host;
  }

  /**
   * Serves one store operation (JSON in, JSON out), or a hosted run.
   *
   * @param request - A POST from {@link DurableObjectThreadStore}, or a request forwarded to {@link HOSTED_RUN_PATH}.
   * @returns The operation's answer as JSON (400 with `{ error }` when it is not one), or the run's response.
   */
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === HOSTED_RUN_PATH) return this.#hosted(request);
    let op: Op | AuditOp;
    try {
      op = (await request.json()) as Op | AuditOp;
    } catch {
      return Response.json({ error: "the body is not JSON" }, { status: 400 });
    }
    // Everything below is synchronous: nothing else runs in this object until it returns.
    try {
      return Response.json(this.#apply(op));
    } catch (error) {
      return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 500 });
    }
  }

  /** Notices a hosted run that died with the object, and runs it again (see the class). */
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
    const response = await this.#serve(markReplayed(again, run.principal), run.runId);
    await response.body?.pipeTo(new WritableStream()).catch(() => undefined);
  }

  async #hosted(request: Request): Promise<Response> {
    if (!this.#host) return Response.json({ error: "this object does not host runs" }, { status: 404 });
    const record = await this.#store.load("");
    // A hold that ran out: its run died with this object; its open claims are cut off calls.
    if (record.lease !== null && !liveLease(record, Date.now())) this.#store.expireOpenClaims();
    const body = request.method === "POST" ? await request.text() : "";
    const runId = runIdOf(body);
    const forwarded = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: body || null,
    });
    if (runId !== undefined) {
      // Kept until the run ends, without the headers (credentials): once the handler has resolved
      // whom the run is for, that person is kept instead, and a run again is for them.
      onHostedPrincipal(forwarded, (principal) => {
        const saved: HostedRunRecord = { runId, url: request.url, body, principal };
        this.#store.setMeta(HOSTED_RUN_META, JSON.stringify(saved));
      });
    }
    return this.#serve(forwarded, runId);
  }

  async #serve(request: Request, runId: string | undefined): Promise<Response> {
    this.#handler ??= this.#host?.handler(this.#store);
    if (!this.#handler) return Response.json({ error: "this object does not host runs" }, { status: 404 });
    if (runId !== undefined) await this.#arm(Date.now() + (this.#host?.leaseMs ?? 30_000));
    return this.#handler(request);
  }

  async #arm(at: number): Promise<void> {
    // A little after the hold would run out, so a live run has renewed it by then.
    await this.#ctx.storage.setAlarm?.(at + 1_000);
  }

  #apply(op: Op | AuditOp): unknown {
    if (isAuditOp(op)) return applyAuditOp(this.#ctx.storage.sql, op);
    const store = this.#store;
    switch (op.op) {
      case "load":
        return { body: store.loadText() };
      case "cas":
        return { ok: store.compareAndSetNow(op.expected, op.data) };
      case "claim":
        return store.claimNow(op.key, op.options);
      case "settle":
        store.settleNow(op.key, op.token, op.result);
        return { ok: true };
      case "release":
        store.releaseNow(op.key, op.token);
        return { ok: true };
      case "events.append":
        store.appendEventsNow(op.runId, op.from, op.events, op.ended);
        return { ok: true };
      case "events.read":
        return { logged: store.readEventsNow(op.runId, op.after) ?? null };
      case "events.compact":
        store.compactEventsNow(op.before);
        return { ok: true };
      default:
        throw new Error(`unknown operation ${JSON.stringify((op as { op?: unknown }).op)}`);
    }
  }
}

interface HostedRunRecord {
  runId: string;
  url: string;
  body: string;
  /** Whom the handler found the run is for (`undefined`: a handler without a `principal` lookup). */
  principal?: string | undefined;
}

/** The `runId` of a run's body (a Stop or anything else has none). */
function runIdOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { runId?: unknown; kaboo_cancel?: unknown };
    return typeof parsed.runId === "string" && parsed.kaboo_cancel === undefined ? parsed.runId : undefined;
  } catch {
    return undefined;
  }
}
