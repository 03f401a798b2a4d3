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
import { SqlThreadStore } from "./durable-object/sql.js";
import { HostedRuns, type KabooThreadHost } from "./durable-object/host.js";
import type { DurableObjectStateLike, Op } from "./durable-object/binding.js";
import { HOSTED_RUN_PATH } from "./durable-object/binding.js";
import { AUDIT_SCHEMA, applyAuditOp, isAuditOp, type AuditOp } from "./durable-object/audit.js";

export { DurableObjectAuditLog } from "./durable-object/audit.js";
export { RunNotResumedError } from "./durable-object/host.js";
export type { KabooThreadHost } from "./durable-object/host.js";
export { DurableObjectGrantStore, KabooGrants } from "./durable-object/grants.js";
export type { DurableObjectGrantStoreOptions, GrantsNamespaceLike } from "./durable-object/grants.js";
export { PrincipalGrantStore, grantsAuditThread } from "./principal-grants.js";
export type { ServerGrantStore } from "../grants/store.js";
export type { PrincipalGrantBackend, PrincipalGrantStoreOptions } from "./principal-grants.js";
export type { DurableObjectAuditLogOptions } from "./durable-object/audit.js";

export { DEFAULT_BUSY_TIMEOUT_MS, StoreBusyError } from "./busy.js";
export { InvalidThreadRecordError, MAX_ANSWERED, THREAD_RECORD_FORMAT, ThreadStoreError } from "./thread-store.js";
export type * from "./thread-store-types.js";
export { SqlThreadStore } from "./durable-object/sql.js";
export type { SqlStorageLike } from "./durable-object/sql.js";
export { HOSTED_RUN_PATH } from "./durable-object/binding.js";
export type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStubLike,
} from "./durable-object/binding.js";
export { DurableObjectThreadStore } from "./durable-object/client.js";
export type { DurableObjectThreadStoreOptions } from "./durable-object/client.js";

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
 * carries only its body. A run again that is refused before it takes the thread (the agent can no
 * longer be made, say) is not tried again: the thread is freed, the request dropped, and the run's
 * log ends with a RUN_ERROR `RUN_NOT_RESUMED` saying why.
 *
 * The run's RUN_STARTED goes out before anything of the run is written: the lease, the kept request
 * and the alarm are written together once the response has taken it, so the first byte does not
 * wait for the object's output gate. Everything else the run sends or fetches comes after those
 * writes and waits for them: a run whose writes were lost (the object died first) did nothing.
 *
 * @example
 * ```ts
 * import { KabooThread as KabooThreadBase } from "kaboo-workflows/stores/durable-object";
 * export class KabooThread extends KabooThreadBase {
 *   constructor(ctx: DurableObjectState, env: Env) {
 *     super(ctx, env, { handler: (store) => createAguiHandler({ stores: { thread: store }, agent: () => makeAgent(env) }) });
 *   }
 * }
 * ```
 */
export class KabooThread {
  readonly #store: SqlThreadStore;
  readonly #ctx: DurableObjectStateLike;
  readonly #runs: HostedRuns;

  /**
   * @param ctx - The Durable Object state (SQLite-backed storage).
   * @param _env - The Worker's env (unused here; a subclass reads it).
   * @param host - How to host runs. Default: none (store operations only).
   */
  constructor(ctx: DurableObjectStateLike, _env?: unknown, host?: KabooThreadHost) {
    this.#ctx = ctx;
    this.#store = new SqlThreadStore(ctx.storage.sql);
    ctx.storage.sql.exec(AUDIT_SCHEMA);
    this.#runs = new HostedRuns(this.#store, ctx, host);
  }

  /**
   * Serves one store operation (JSON in, JSON out), or a hosted run.
   *
   * @param request - A POST from {@link DurableObjectThreadStore}, or a request forwarded to {@link HOSTED_RUN_PATH}.
   * @returns The operation's answer as JSON (400 with `{ error }` when it is not one), or the run's response.
   */
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === HOSTED_RUN_PATH) return this.#runs.serve(request);
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
    await this.#runs.alarm();
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
        return store.claimNow(op.key, op.options, op.holder);
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
