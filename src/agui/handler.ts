/**
 * The edge handler: `Request` → AG-UI over SSE `Response`, for Cloudflare Workers,
 * Deno, Bun, Node 20+ and service workers. Web APIs only.
 *
 * @module
 */
import { EventType, type AGUIEvent, type RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import * as z from "zod/v4/mini";
import { withinDepth } from "../agent/json-depth.js";
import type { Agent } from "../agent/agent.js";
import type { InvocationState } from "../agent/events.js";
import { describe } from "../errors.js";
import { acceptGrants } from "../grants/accept.js";
import { parseGrant, type Grant } from "../grants/grant.js";
import { signGrant, type GrantSecret } from "../grants/signing.js";
import type { GrantStore } from "../grants/store.js";
import { forwardedPropsWithGrants, GRANTS_PROP } from "../agent/run-context.js";
import { approvalDecisions, decisionGrants } from "../hooks/approval/run.js";
import { defaultLogger, type Logger } from "../logger.js";
import { runAgui, type CompletedCalls } from "./run.js";
import { customEvent } from "./run-events.js";
import { SSE_HEADERS, sseStream } from "./sse.js";

/** Name of the CUSTOM event that hands the client the grants this run created (when the handler has no store). */
export const GRANTS_EVENT = "kaboo_grants";

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
   * Makes the runner agent for one request (edge isolates keep nothing between requests: the
   * paused session travels in the AG-UI state). The handler cannot configure your hooks: pass
   * `context.secret` to your `InterruptHook` yourself.
   */
  agent: (threadId: string, context: AguiHandlerContext) => Agent | Promise<Agent>;
  /**
   * HMAC secret for remembered grants. Incoming `forwardedProps.kaboo_grants` that are not signed
   * with it are dropped before the run (and logged), so the gate asks again; grants the handler
   * hands out or reads from `grantStore` are signed with it. Default: none (grants are not checked
   * by the handler; the gate still validates them).
   */
  secret?: GrantSecret;
  /** Answer CORS preflights and add CORS headers. Default: off (same origin only). */
  cors?: boolean | AguiCorsOptions;
  /**
   * Server-side grants (e.g. backed by KV). When set, each run carries `grantsFor(threadId)` (signed
   * when `secret` is set) instead of the client's grants, and `thread`/`always` answers are recorded
   * in it. When absent, those answers go to the client as a CUSTOM `kaboo_grants` event
   * (`value: { grants }`) for it to store and send back as `forwardedProps.kaboo_grants`.
   */
  grantStore?: GrantStore;
  /**
   * Tool calls that already ran, per thread (`(threadId) => CompletedCalls`), backed by durable
   * storage (KV, a Durable Object). With it, a resume delivered twice or an older snapshot replayed
   * runs nothing again. Without it the handler is stateless and cannot tell a replay from a resume:
   * exactly-once then holds only as far as the client does not replay. Default: none.
   */
  completed?: (threadId: string) => CompletedCalls;
  /** An SSE comment is sent after this many ms without an event. `0`: none. Default 15000. */
  heartbeatMs?: number;
  /** Extra per-run setup of `invocationState` (state effects, history exchange, …). */
  prepare?: (invocationState: InvocationState, request: Request) => void | Promise<void>;
  /** Where rejected grants and failures are reported. Default: the console. */
  logger?: Logger;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/**
 * Serves AG-UI runs over HTTP: POST a `RunAgentInput` (JSON), get the run's AG-UI events as
 * Server-Sent Events (`data: <json>\n\n`, `: ping` heartbeats while the run is quiet). Bad JSON
 * or a body that is not a `RunAgentInput` → 400 `{ error, detail }`; other methods → 405. A
 * client that disconnects aborts the run; a failure mid-run becomes RUN_ERROR and the stream ends.
 *
 * Approvals pause with `RUN_FINISHED { outcome: { type: "interrupt" } }` and a STATE_SNAPSHOT whose
 * `kaboo_session` key holds the paused session: the client sends the state back with `resume`.
 * To let people choose `thread`/`always`, the client must send `forwardedProps.kaboo_grants` (even `[]`).
 *
 * @param options - `agent` factory; `secret`, `cors`, `grantStore`, `heartbeatMs` (15000), `prepare`, `logger`.
 * @returns `(request) => Promise<Response>`.
 * @example
 * ```ts
 * // Cloudflare Worker
 * const handle = createAguiHandler({
 *   secret: "from env",
 *   agent: (threadId, { secret }) =>
 *     new Agent({ model, tools, hooks: [new InterruptHook(["transfer"], { secret })] }),
 * });
 * export default { fetch: (request: Request) => handle(request) };
 * ```
 */
export function createAguiHandler(options: AguiHandlerOptions): (request: Request) => Promise<Response> {
  const log = options.logger ?? defaultLogger;
  const allow = options.cors ? "POST, OPTIONS" : "POST";
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

    let body: unknown;
    try {
      body = JSON.parse(await request.text());
    } catch (error) {
      return fail(400, "invalid_json", `The body is not JSON: ${describe(error)}`);
    }
    if (!withinDepth(body)) return fail(400, "invalid_run_input", "The body is nested too deep.");
    const parsed = RunAgentInputSchema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message }));
      return fail(400, "invalid_run_input", `The body is not an AG-UI RunAgentInput:\n${z.prettifyError(parsed.error)}`, {
        issues,
      });
    }
    let input = parsed.data as RunAgentInput;

    let agent: Agent;
    try {
      input = { ...input, forwardedProps: await withGrants(input, options, log) };
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
    const events = edgeRun({ agent, input, signal: controller.signal, request, options, log, release });
    const stream = sseStream(events, {
      heartbeatMs: options.heartbeatMs,
      onCancel: (reason) => controller.abort(reason),
    });
    return new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...cors } });
  };
}

interface EdgeRun {
  agent: Agent;
  input: RunAgentInput;
  signal: AbortSignal;
  request: Request;
  options: AguiHandlerOptions;
  log: Logger;
  /** Called when the run's events end, however they end. */
  release: () => void;
}

/** The run's events, with the grants it created recorded or handed out before RUN_FINISHED. */
async function* edgeRun({ agent, input, signal, request, options, log, release }: EdgeRun): AsyncGenerator<AGUIEvent> {
  let invocationState: InvocationState | undefined;
  const prepare = async (state: InvocationState) => {
    invocationState = state;
    await options.prepare?.(state, request);
  };
  try {
    for await (const event of runAgui({ agent, input, signal, prepare, completed: options.completed?.(input.threadId) })) {
      if (event.type === EventType.RUN_FINISHED && invocationState)
        yield* handOutGrants(runGrantsToHandOut(invocationState, input.threadId, log), options, log);
      yield event;
    }
  } finally {
    release();
  }
}

/** Records new grants in the store, or yields them (signed under a secret) for the client to keep. */
async function* handOutGrants(grants: Grant[], options: AguiHandlerOptions, log: Logger): AsyncGenerator<AGUIEvent> {
  if (!grants.length) return;
  const { grantStore, secret } = options;
  if (!grantStore) {
    const out = secret === undefined ? grants : await Promise.all(grants.map((g) => signGrant(g, secret)));
    yield customEvent(GRANTS_EVENT, { grants: out });
    return;
  }
  for (const grant of grants) {
    try {
      await grantStore.grant(grant);
    } catch (error) {
      log.error("kaboo: could not record a grant", { tool: grant.tool, error: describe(error) });
    }
  }
}

/** The run's `forwardedProps` with the grants the gate may trust. */
async function withGrants(input: RunAgentInput, options: AguiHandlerOptions, log: Logger): Promise<Record<string, unknown>> {
  const sent = forwardedPropsWithGrants(input.forwardedProps);
  const { secret, grantStore } = options;
  if (grantStore) {
    const stored = await grantStore.grantsFor(input.threadId);
    // The store is the server's own: its grants are signed here so a gate with the secret accepts them.
    return forwardedPropsWithGrants(
      sent,
      secret === undefined ? stored : await Promise.all(stored.map((g) => signGrant(g, secret))),
    );
  }
  if (secret !== undefined && Object.hasOwn(sent, GRANTS_PROP)) {
    // Checked here too, so a gate built without the secret never sees a forged grant.
    const { grants, rejected } = await acceptGrants(sent[GRANTS_PROP], { secret });
    for (const r of rejected) log.warn("kaboo: grant rejected", { reason: r.reason, threadId: input.threadId });
    return forwardedPropsWithGrants(sent, grants);
  }
  return sent;
}

/** Grants for this run's `thread`/`always` approvals. */
function runGrantsToHandOut(invocationState: InvocationState, threadId: string, log: Logger): Grant[] {
  const out: Grant[] = [];
  const now = Date.now();
  for (const candidate of decisionGrants(approvalDecisions(invocationState), threadId)) {
    const parsed = parseGrant({ ...candidate, grantedAt: now });
    if (parsed.ok) out.push(parsed.grant);
    else log.warn("kaboo: an approval could not become a grant", { tool: candidate.tool, reason: parsed.reason });
  }
  return out;
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
