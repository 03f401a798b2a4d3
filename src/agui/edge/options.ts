/**
 * The options of the edge handler: what people pass, in groups (`stores`, `trust`, `limits`, `timing`),
 * and the settings the handler and its steps read (derived from them in one place: resolve-options.ts).
 *
 * @module
 */
import type { MaxEntries } from "./request/limits.js";
import type { Agent } from "../../agent/agent.js";
import type { InvocationState } from "../../agent/events.js";
import type { AuditLog } from "../../agent/audit/audit.js";
import type { ExecutionLedger } from "../../agent/ledger/ledger.js";
import type { GrantSecret } from "../../grants/signing.js";
import type { GrantStore } from "../../grants/store.js";
import type { Logger } from "../../logger.js";
import type { ThreadStore } from "../../stores/thread-store.js";
import type { PrincipalLookup } from "./request/principal.js";

/** What the handler tells the agent factory. */
export interface AguiHandlerContext {
  /** The handler's `secret`: give it to your `InterruptHook` (`new InterruptHook(rules, { secret })`). */
  secret: GrantSecret | undefined;
  /** The incoming request (headers for auth, `cf` properties, …). */
  request: Request;
}

/**
 * What a serverless host passes with each request so that work may go on after the response is
 * delivered (Cloudflare's `ctx`, `waitUntil` of `@vercel/functions`, Netlify's `context`): give it as the
 * handler's second argument, `handle(request, ctx)`.
 */
export interface AguiExecutionContext {
  /**
   * Keeps the function alive until `promise` settles. With a thread store the handler gives it the run
   * itself, which settles once the run ended or paused and recorded what ran (not when the client left).
   */
  waitUntil?(promise: Promise<unknown>): void;
}

/** Cross-origin settings. `true`: any origin (`*`). */
export interface AguiCorsOptions {
  /** Allowed origin(s). A list echoes the request's `Origin` when it is listed. Default `*`. */
  origin?: string | readonly string[];
  /** Request headers a browser may send. Default `content-type`, `accept`, `authorization`. */
  headers?: readonly string[];
  /** How long a browser may cache the preflight, in seconds. Default 86400. */
  maxAge?: number;
}

/**
 * The handler's settings as its steps read them: {@link AguiHandlerOptions} flattened, with the run mode.
 * @internal
 */
export interface HandlerSettings {
  /**
   * Makes the runner agent for one request (edge isolates keep nothing between requests). The
   * handler cannot configure your hooks: pass `context.secret` to your `InterruptHook` yourself.
   */
  agent: (threadId: string, context: AguiHandlerContext) => Agent | Promise<Agent>;
  /**
   * The authoritative record of each thread (`MemoryThreadStore`, `DurableObjectThreadStore`,
   * `DenoKvThreadStore`). With it the client's `kaboo_session` decides nothing: a resume is checked
   * against the stored pause, only the stored paused batch runs, two concurrent resumes run it
   * once, and a replay is answered with the recorded outcome. Default: none (stateless, sealed).
   */
  store?: ThreadStore;
  /**
   * HMAC secret. Without a `store` it seals the session the handler sends (and refuses any other);
   * incoming `forwardedProps.kaboo_grants` not signed with it are dropped (and logged), and grants
   * the handler hands out or reads from `grantStore` are signed with it. Required without a
   * `store` (unless `insecureDevelopmentMode`). Default: none.
   */
  secret?: GrantSecret;
  /**
   * Who the request is for, from the host's verified session or auth header (never from the body).
   * Grants are bound to it (signed grants carry it; a grant store is keyed by it), and a thread in
   * a `store` belongs to the first principal that ran it. It fails closed: anything but a non-empty
   * string (`undefined` from a `session?.user` with no session, `null`, `""`) or a throw answers
   * 401 before the body is read. Default: none (every request is anonymous).
   */
  principal?: PrincipalLookup;
  /**
   * Development only: run without a store and without a secret. Sessions are then neither sealed
   * nor checked, so a client can forge what runs. Default `false` (such a handler refuses to start).
   */
  insecureDevelopmentMode?: boolean;
  /** Let unsigned client grants count when there is no secret (they skip questions for anyone). Default `false`. */
  acceptUnsignedGrants?: boolean;
  /** Answer CORS preflights and add CORS headers. Default: off (same origin only). */
  cors?: boolean | AguiCorsOptions;
  /**
   * Server-side grants (e.g. backed by KV). When set, each run carries the principal's
   * `grantsFor(threadId, { principal })` (signed when `secret` is set) instead of the client's
   * grants, and `thread`/`always` answers are recorded in it. When absent, those answers go to the
   * client as a CUSTOM `kaboo_grants` event (`value: { grants }`) to send back as `forwardedProps.kaboo_grants`.
   */
  grantStore?: GrantStore;
  /**
   * The execution ledger of a handler without a `store` (a store brings its own), or one per thread
   * (`(threadId) => ExecutionLedger`), backed by durable storage. Every call is claimed in it before
   * it runs, so a resume delivered twice or two requests at once run a call once. Default: the
   * runner agent's own memory ledger, which holds only as long as that agent lives.
   */
  ledger?: ExecutionLedger | ((threadId: string) => ExecutionLedger);
  /**
   * The audit trail (`DurableObjectAuditLog`, `DenoKvAuditLog`, `MemoryAuditLog`): every question
   * shown, answer given (with its principal and the resume entry's `metadata.signature`), grant used
   * and call run is appended to the thread's hash-chained trail, and sent to the client as CUSTOM
   * `kaboo_audit` events (`value: { entries }`). Default: none.
   */
  audit?: AuditLog;
  /**
   * Most client grants (`forwardedProps.kaboo_grants`) read per run; later entries are ignored, with
   * one warning for the whole list. Default 256.
   */
  maxGrants?: number;
  /** Largest body read, in bytes; a larger one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Deepest nesting of `state`, `forwardedProps`, `resume` (and the body, plus 8); deeper is answered 400. Default 64. */
  maxJsonDepth?: number;
  /**
   * Most entries of `messages` (2,000), `tools` (128), `context` (256) and `resume` (256) a body may
   * carry; a longer list is answered 400 `too_many` before any schema reads the body. Defaults in
   * parentheses.
   */
  maxEntries?: MaxEntries;
  /**
   * Most JSON values a body may hold (every string, number, object, … counts one); more is
   * answered 400 `too_complex` before the body is parsed. Default 100,000.
   */
  maxJsonValues?: number;
  /** Most keys of any one object in a body; more is answered 400 `too_complex` before parsing. Default 500. */
  maxObjectKeys?: number;
  /**
   * How long a run's hold on its thread in the `store` lasts without being renewed, ms. A live run
   * renews it every third of this, however long it runs; a run that died with its isolate blocks
   * the thread at most this long. Default 30 s ({@link DEFAULT_RUN_LEASE_MS}).
   */
  runLeaseMs?: number;
  /**
   * How long a finished run's events stay in the thread's event log (with a `store` that keeps one),
   * for a client that reattaches late, ms. Default 10 minutes.
   */
  eventLogRetentionMs?: number;
  /** An SSE comment is sent after this many ms without an event. `0`: none. Default 15000. */
  heartbeatMs?: number;
  /** Extra per-run setup of `invocationState` (state effects, history exchange, …). */
  prepare?: (invocationState: InvocationState, request: Request) => void | Promise<void>;
  /** Where every message of the handler goes (client strings cut to 300 characters). Default: the console. */
  logger?: Logger;
}

/**
 * How the handler holds a thread, derived from the options once:
 * - `stored`: a thread store is the authority (exactly once, history and replays from the record);
 * - `sealed`: no store; the paused session travels to the client sealed under the secret;
 * - `insecure-development`: neither (sessions are neither sealed nor checked), development only.
 */
export type RunMode = "stored" | "sealed" | "insecure-development";

/** Where a handler keeps what outlives a request. */
export interface AguiHandlerStores {
  /**
   * The authoritative record of each thread (`MemoryThreadStore`, `DurableObjectThreadStore`,
   * `DenoKvThreadStore`, `PostgresThreadStore`). With it the client's `kaboo_session` decides nothing:
   * a resume is checked against the stored pause, only the stored paused batch runs, two concurrent
   * resumes run it once, and a replay is answered with the recorded outcome. It brings its own
   * ledger. Default: none (the `sealed` mode).
   */
  thread?: ThreadStore;
  /**
   * Server-side grants. When set, each run carries the principal's `grantsFor(threadId, { principal })`
   * (signed when `trust.secret` is set) instead of the client's grants, and `thread`/`always` answers
   * are recorded in it. When absent, those answers go to the client as a CUSTOM `kaboo_grants` event
   * (`value: { grants }`) to send back as `forwardedProps.kaboo_grants`. Default: none.
   */
  grants?: GrantStore;
  /**
   * The execution ledger of a handler without a thread store, or one per thread
   * (`(threadId) => ExecutionLedger`), backed by durable storage. Every call is claimed in it before it
   * runs, so a resume delivered twice or two requests at once run a call once. Refused together with
   * `thread` (which brings its own). Default: the runner agent's own memory ledger, which holds only as
   * long as that agent lives.
   */
  ledger?: ExecutionLedger | ((threadId: string) => ExecutionLedger);
  /**
   * The audit trail (`DurableObjectAuditLog`, `DenoKvAuditLog`, `MemoryAuditLog`, `PostgresAuditLog`):
   * every question shown, answer given (with its principal and the resume entry's
   * `metadata.signature`), grant used and call run is appended to the thread's hash-chained trail, and
   * sent to the client as CUSTOM `kaboo_audit` events (`value: { entries }`). Default: none.
   */
  audit?: AuditLog;
}

/** Who a request is for, and what the handler trusts from the client. */
export interface AguiHandlerTrust {
  /**
   * HMAC secret. Without a thread store it seals the session the handler sends (and refuses any
   * other); incoming `forwardedProps.kaboo_grants` not signed with it are dropped (and logged), and
   * grants the handler hands out or reads from `stores.grants` are signed with it. Required without a
   * thread store (unless `insecureDevelopmentMode`). Default: none.
   */
  secret?: GrantSecret;
  /**
   * Who the request is for, from the host's verified session or auth header (never from the body).
   * Grants are bound to it (signed grants carry it; a grant store is keyed by it), and a thread in a
   * store belongs to the first principal that ran it. It fails closed: anything but a non-empty string
   * (`undefined` from a `session?.user` with no session, `null`, `""`) or a throw answers 401 before
   * the body is read. Default: none (every request is anonymous).
   */
  principal?: PrincipalLookup;
  /**
   * Let unsigned client grants count (they skip questions for anyone). Only without a `secret` and
   * without `stores.grants` (refused with either). Default `false`.
   */
  acceptUnsignedGrants?: boolean;
  /**
   * Development only: run with neither a thread store nor a secret. Sessions are then neither sealed
   * nor checked, so a client can forge what runs. Refused with a store or a secret. Default `false`
   * (such a handler refuses to start).
   */
  insecureDevelopmentMode?: boolean;
}

/** Bounds on what one request may carry; past them it is answered 4xx before anything runs. */
export interface AguiHandlerLimits {
  /** Largest body read, in bytes; a larger one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Deepest nesting of `state`, `forwardedProps`, `resume` (and the body, plus 8); deeper is answered 400. Default 64. */
  maxJsonDepth?: number;
  /**
   * Most entries of `messages` (2,000), `tools` (128), `context` (256) and `resume` (256) a body may
   * carry; a longer list is answered 400 `too_many` before any schema reads the body. Defaults in
   * parentheses.
   */
  maxEntries?: MaxEntries;
  /** Most JSON values a body may hold (every string, number, object, … counts one); more is 400 `too_complex`. Default 100,000. */
  maxJsonValues?: number;
  /** Most keys of any one object in a body; more is answered 400 `too_complex` before parsing. Default 500. */
  maxObjectKeys?: number;
  /** Most client grants (`forwardedProps.kaboo_grants`) read per run; later ones are ignored, with one warning. Default 256. */
  maxGrants?: number;
}

/** How long things last. */
export interface AguiHandlerTiming {
  /**
   * How long a run's hold on its thread in the store lasts without being renewed, ms. A live run
   * renews it every third of this, however long it runs; a run that died with its isolate blocks the
   * thread at most this long. Default 30 s.
   */
  runLeaseMs?: number;
  /** How long a finished run's events stay in the thread's event log, for a client that reattaches late, ms. Default 10 minutes. */
  eventLogRetentionMs?: number;
  /** An SSE comment is sent after this many ms without an event. `0`: none. Default 15000. */
  heartbeatMs?: number;
}

/** Options of {@link createAguiHandler}, in groups. */
export interface AguiHandlerOptions {
  /**
   * Makes the runner agent for one request (edge isolates keep nothing between requests). The
   * handler cannot configure your hooks: pass `context.secret` to your `InterruptHook` yourself.
   */
  agent: (threadId: string, context: AguiHandlerContext) => Agent | Promise<Agent>;
  /** Thread store, grant store, ledger and audit trail. Default: none of them. */
  stores?: AguiHandlerStores;
  /** The secret, the principal, and what is trusted from the client. */
  trust?: AguiHandlerTrust;
  /** Bounds on a request's body. Defaults as listed in {@link AguiHandlerLimits}. */
  limits?: AguiHandlerLimits;
  /** Leases, retention and heartbeats. Defaults as listed in {@link AguiHandlerTiming}. */
  timing?: AguiHandlerTiming;
  /** Answer CORS preflights and add CORS headers. Default: off (same origin only). */
  cors?: boolean | AguiCorsOptions;
  /** Extra per-run setup of `invocationState` (state effects, history exchange, …). */
  prepare?: (invocationState: InvocationState, request: Request) => void | Promise<void>;
  /** Where every message of the handler goes (client strings cut to 300 characters). Default: the console. */
  logger?: Logger;
}
