/**
 * `kaboo-workflows/agui`: the runner as an AG-UI agent — in the page ({@link KabooAgent}, an
 * `@ag-ui/client` `AbstractAgent`) and at the edge ({@link createAguiHandler}, `Request` → SSE).
 * Needs the optional peers `@ag-ui/client` and `rxjs`.
 *
 * @example
 * ```ts
 * import { createAguiHandler } from "kaboo-workflows/agui";
 * import { MemoryThreadStore } from "kaboo-workflows/stores/memory";
 * export default { fetch: createAguiHandler({ store: new MemoryThreadStore(), agent: () => new Agent({ model, tools }) }) };
 * ```
 *
 * @module
 */
export { KabooAgent } from "./page/kaboo-agent.js";
export type { KabooAgentConfig, KabooRunParameters } from "./page/config.js";
export { RunInProgressError, StaleThreadError } from "./page/errors.js";
export type { RunFailure } from "./page/reattach.js";
export type { RunCheckpoint } from "./core/checkpoint.js";
export { runAgui, SESSION_STATE_KEY } from "./core/run.js";
export type { AguiRunOptions } from "./core/run.js";
export { createAguiHandler, GRANTS_EVENT } from "./edge/handler.js";
export { GRANT_NOT_SAVED_EVENT } from "./core/new-grants.js";
export { AUDIT_EVENT } from "./audit-events.js";
export { createGrantsHandler } from "./edge/trust/grants-endpoint.js";
export type { GrantsHandlerOptions, ListedGrant } from "./edge/trust/grants-endpoint.js";
export type {
  AguiCorsOptions,
  AguiExecutionContext,
  AguiHandlerContext,
  AguiHandlerLimits,
  AguiHandlerOptions,
  AguiHandlerStores,
  AguiHandlerTiming,
  AguiHandlerTrust,
  RunMode,
} from "./edge/handler.js";
export type { PrincipalLookup } from "./edge/request/principal.js";
export {
  EventLogIncompleteError,
  HistoryConflictError,
  InvalidSessionError,
  ResumeInProgressError,
  ThreadBusyError,
  ThreadConflictError,
  ThreadForbiddenError,
} from "./edge/errors.js";
export { openSession, sealSession, SEAL_KEY, SEAL_VERSION } from "./edge/trust/seal.js";
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_JSON_DEPTH } from "./edge/request/limits.js";
export { DEFAULT_RUN_LEASE_MS } from "./edge/run/thread-hold.js";
export { CANCEL_KEY } from "./edge/run/cancel.js";
export { CONNECT_KEY } from "./edge/run/connect.js";
export { forwardToThread } from "./edge/route.js";
export type { ForwardToThreadOptions } from "./edge/route.js";
export { encodeSseEvent, sseStream, SSE_HEADERS, SSE_HEARTBEAT } from "./edge/request/sse.js";
export type { SseStreamOptions } from "./edge/request/sse.js";
export { AguiEventMapper } from "./events.js";
export { fromAguiMessages, toAguiMessages, toolMessage } from "./messages.js";
export type { ConvertedMessages } from "./messages.js";
export { CLIENT_TOOL_INTERRUPT, toAguiInterrupt, toInterruptResponses } from "./interrupts.js";
export { clientTool, installClientTools } from "./client-tools.js";
export type { ClientToolHandler } from "./client-tools.js";
export {
  IndexedDbSessionStore,
  MemorySessionStore,
  parseThreadSnapshot,
  THREAD_SNAPSHOT_VERSION,
} from "../indexeddb/session-store.js";
export type {
  IndexedDbSessionStoreOptions,
  RunRecord,
  SessionStore,
  ThreadSnapshot,
} from "../indexeddb/session-store.js";
export { toAguiEvents, HANDOFF_CUSTOM_EVENT } from "./multiagent-events.js";
export type { ToAguiOptions } from "./multiagent-events.js";
