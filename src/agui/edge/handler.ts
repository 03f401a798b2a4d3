/**
 * The edge handler: `Request` → AG-UI over SSE `Response`, for Cloudflare Workers,
 * Deno, Bun, Node 20+ and service workers. Web APIs only.
 *
 * @module
 */
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import * as z from "zod/v4/mini";
import type { Agent } from "../../agent/agent.js";
import type { ExecutionLedger } from "../../agent/ledger.js";
import type { InvocationState } from "../../agent/events.js";
import { UserError, describe } from "../../errors.js";
import { positiveIntegerOption } from "../../options.js";
import { DEFAULT_MAX_GRANTS } from "../../grants/grant.js";
import type { GrantSecret } from "../../grants/signing.js";
import type { GrantStore } from "../../grants/store.js";
import { runContext } from "../../agent/run-context.js";
import { defaultLogger, type Logger } from "../../logger.js";
import type { ThreadStore } from "../../stores/thread-store.js";
import { InvalidSessionError } from "./errors.js";
import { decisionGrants, handOutGrants, trustedGrants, type EdgeGrantOptions } from "./grants.js";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_JSON_DEPTH, boundedLogger, readBodyWithin, tooDeepPart } from "./limits.js";
import { runAgui } from "../run.js";
import { resolvePrincipal, type PrincipalLookup } from "./principal.js";
import { runError, runStarted } from "../run-events.js";
import { openIncomingState, sealOutgoing } from "./seal.js";
import { SSE_HEADERS, sseStream } from "./sse.js";
import { storedRun } from "./stored-run.js";

export { GRANTS_EVENT } from "./grants.js";

/** What the handler tells the agent factory. */
export interface AguiHandlerContext {
  /** The handler's `secret`: give it to your `InterruptHook` (`new InterruptHook(rules, { secret })`). */
  secret: GrantSecret | undefined;
  /** The incoming request (headers for auth, `cf` properties, …). */
  request: Request;
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

/** Options of {@link createAguiHandler}. */
export interface AguiHandlerOptions {
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
   * Most client grants (`forwardedProps.kaboo_grants`) read per run; later entries are ignored, with
   * one warning for the whole list. Default 256.
   */
  maxGrants?: number;
  /** Largest body read, in bytes; a larger one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Deepest nesting of `state`, `forwardedProps`, `resume` (and the body, plus 8); deeper is answered 400. Default 64. */
  maxJsonDepth?: number;
  /** How long a run holds its thread in the `store`, ms. Default 5 minutes. */
  runLeaseMs?: number;
  /** An SSE comment is sent after this many ms without an event. `0`: none. Default 15000. */
  heartbeatMs?: number;
  /** Extra per-run setup of `invocationState` (state effects, history exchange, …). */
  prepare?: (invocationState: InvocationState, request: Request) => void | Promise<void>;
  /** Where every message of the handler goes (client strings cut to 300 characters). Default: the console. */
  logger?: Logger;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/**
 * Serves AG-UI runs over HTTP: POST a `RunAgentInput` (JSON), get the run's AG-UI events as
 * Server-Sent Events (`data: <json>\n\n`, `: ping` heartbeats while the run is quiet). A body over
 * `maxBodyBytes` → 413; bad JSON, JSON nested deeper than `maxJsonDepth` or a body that is not a
 * `RunAgentInput` → 400 `{ error, detail }`; a failing `principal` → 401; other methods → 405. A
 * client that disconnects aborts the run; a failure mid-run becomes RUN_ERROR and the stream ends.
 *
 * Approvals pause with `RUN_FINISHED { outcome: { type: "interrupt" } }`; the client answers with
 * `resume`. With a `store` the thread lives on the server. Without one the paused session travels
 * sealed in the state's `kaboo_session` key: send the state back as received.
 * To let people choose `thread`/`always`, the client must send `forwardedProps.kaboo_grants` (even `[]`).
 *
 * @param options - `agent` factory; `store`, `secret`, `principal`, `cors`, `grantStore`, limits
 *   (`maxBodyBytes` 1 MiB, `maxJsonDepth` 64), `heartbeatMs` (15000), `prepare`, `logger`.
 * @returns `(request) => Promise<Response>`.
 * @throws {UserError} Without `store` and `secret`, unless `insecureDevelopmentMode` is set.
 * @example
 * ```ts
 * // Cloudflare Worker with a Durable Object per thread
 * export { KabooThread } from "kaboo-workflows/stores/durable-object";
 * export default {
 *   fetch: (request: Request, env: Env) =>
 *     createAguiHandler({
 *       store: new DurableObjectThreadStore(env.KABOO_THREAD),
 *       secret: env.GRANT_SECRET,
 *       principal: (req) => verifiedUser(req),
 *       agent: (threadId, { secret }) => new Agent({ model, tools, hooks: [new InterruptHook(["transfer"], { secret })] }),
 *     })(request),
 * };
 * ```
 */
export function createAguiHandler(options: AguiHandlerOptions): (request: Request) => Promise<Response> {
  if (!options.store && options.secret === undefined && options.insecureDevelopmentMode !== true) {
    throw new UserError(
      "createAguiHandler needs a `store` (a thread store: exactly once, replays answered from the record) or a `secret` " +
        "(stateless: sessions are sealed so a client cannot forge what runs). For local development only, set " +
        "`insecureDevelopmentMode: true`.",
    );
  }
  const log = boundedLogger(options.logger ?? defaultLogger);
  const allow = options.cors ? "POST, OPTIONS" : "POST";
  const maxDepth = positiveIntegerOption("maxJsonDepth", options.maxJsonDepth, DEFAULT_MAX_JSON_DEPTH);
  const maxBytes = positiveIntegerOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES);
  const maxGrants = positiveIntegerOption("maxGrants", options.maxGrants, DEFAULT_MAX_GRANTS);
  return async (request) => {
    const cors = corsHeaders(options.cors, request);
    const fail = (
      status: number,
      error: string,
      detail: string,
      extra: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ) => new Response(JSON.stringify({ error, detail, ...extra }), { status, headers: { ...JSON_HEADERS, ...cors, ...headers } });

    if (request.method === "OPTIONS" && options.cors)
      return new Response(null, { status: 204, headers: { ...cors, ...preflightHeaders(options.cors) } });
    if (request.method !== "POST") return fail(405, "method_not_allowed", `This endpoint accepts ${allow} only.`, {}, { allow });
    // Who it is for comes first: nothing of a request from no one is read.
    const who = await resolvePrincipal(options.principal, request, log);
    if ("missing" in who) return fail(401, "unauthenticated", who.missing);
    const { principal } = who;

    const read = await readBodyWithin(request, maxBytes);
    if ("tooLarge" in read) return fail(413, "body_too_large", `The body is larger than ${maxBytes} bytes.`);
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch (error) {
      return fail(400, "invalid_json", `The body is not JSON: ${describe(error)}`);
    }
    const deep = tooDeepPart(body, maxDepth);
    if (deep) return fail(400, "too_deep", `${deep} is nested deeper than ${maxDepth} levels.`);
    const parsed = RunAgentInputSchema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message }));
      return fail(400, "invalid_run_input", `The body is not an AG-UI RunAgentInput:\n${z.prettifyError(parsed.error)}`, {
        issues,
      });
    }
    let input = parsed.data as RunAgentInput;

    const grants: EdgeGrantOptions = { ...options, maxGrants, principal, log };

    let agent: Agent;
    try {
      const opened = await openIncomingState(input, { store: options.store !== undefined, secret: options.secret, principal });
      if (opened instanceof InvalidSessionError) {
        log.warn("kaboo: session refused", { reason: opened.message, threadId: input.threadId });
        return sse(refusal(input, opened), options, cors);
      }
      input = { ...input, state: opened, forwardedProps: await trustedGrants(input, grants) };
      agent = await options.agent(input.threadId, { secret: options.secret, request });
    } catch (error) {
      log.error("kaboo: the AG-UI handler could not start the run", { error: describe(error), threadId: input.threadId });
      return fail(500, "run_not_started", describe(error));
    }

    const controller = new AbortController();
    const abort = () => controller.abort(request.signal.reason);
    if (request.signal.aborted) abort();
    else request.signal.addEventListener("abort", abort, { once: true });
    // Deno aborts request.signal once a response is delivered: only an abort during the run counts.
    const release = () => request.signal.removeEventListener("abort", abort);
    const events = edgeRun({ agent, input, signal: controller.signal, request, options, grants, log, release });
    return sse(sealOutgoing(events, input.threadId, options.secret, principal), options, cors, controller);
  };
}

function sse(
  events: AsyncIterable<BaseEvent>,
  options: AguiHandlerOptions,
  cors: Record<string, string>,
  controller?: AbortController,
): Response {
  const stream = sseStream(events, {
    heartbeatMs: options.heartbeatMs,
    onCancel: (reason) => controller?.abort(reason),
  });
  return new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...cors } });
}

async function* refusal(input: RunAgentInput, error: InvalidSessionError): AsyncGenerator<BaseEvent> {
  yield runStarted(input);
  yield runError(error);
}

interface EdgeRun {
  agent: Agent;
  input: RunAgentInput;
  signal: AbortSignal;
  request: Request;
  options: AguiHandlerOptions;
  grants: EdgeGrantOptions;
  log: Logger;
  /** Called when the run's events end, however they end. */
  release: () => void;
}

/** The run's events (through the store when there is one), with new grants handed out before RUN_FINISHED. */
async function* edgeRun({ agent, input, signal, request, options, grants, log, release }: EdgeRun): AsyncGenerator<BaseEvent> {
  let invocationState: InvocationState | undefined;
  const prepare = async (state: InvocationState) => {
    invocationState = state;
    if (grants.principal !== undefined) runContext.principal.set(state, grants.principal);
    // With a store every call is claimed in the thread's own ledger, shared by every isolate.
    if (options.store) runContext.executionLedger.set(state, options.store.ledger(input.threadId));
    await options.prepare?.(state, request);
  };
  const { store } = options;
  const ledger = typeof options.ledger === "function" ? options.ledger(input.threadId) : options.ledger;
  const run = (runInput: RunAgentInput) => runAgui({ agent, input: runInput, signal, prepare, ledger, logger: log });
  const events = store
    ? storedRun({ store, input, principal: grants.principal, log, leaseMs: options.runLeaseMs, run })
    : run(input);
  try {
    for await (const event of events) {
      if (event.type === EventType.RUN_FINISHED && invocationState)
        yield* handOutGrants(decisionGrants(invocationState, input.threadId, grants), grants);
      yield event;
    }
  } finally {
    release();
  }
}

function corsHeaders(cors: AguiHandlerOptions["cors"], request: Request): Record<string, string> {
  if (!cors) return {};
  const allowed = cors === true ? "*" : (cors.origin ?? "*");
  if (typeof allowed === "string")
    return allowed === "*" ? { "access-control-allow-origin": "*" } : { "access-control-allow-origin": allowed, vary: "Origin" };
  const origin = request.headers.get("origin");
  return origin !== null && allowed.includes(origin)
    ? { "access-control-allow-origin": origin, vary: "Origin" }
    : { vary: "Origin" };
}

function preflightHeaders(cors: true | AguiCorsOptions): Record<string, string> {
  const o = cors === true ? {} : cors;
  return {
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers": (o.headers ?? ["content-type", "accept", "authorization"]).join(", "),
    "access-control-max-age": String(o.maxAge ?? 86_400),
  };
}
