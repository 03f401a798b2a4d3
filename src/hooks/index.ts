/**
 * `kaboo-workflows/hooks`: the lifecycle hooks, one per entry of the Python
 * `kaboo_workflows.hooks`, plus the per-run keys and helpers hosts use with them.
 *
 * @module
 */
export {
  APPROVAL_SCOPES,
  GRANTS_PROP,
  TOOL_APPROVAL_KEY,
  approvalAnswerSchema,
  readAnswer,
} from "./approval/request.js";
export type { ApprovalAnswer, ApprovalRequest, ApprovalScope, ApprovalSubject, Decision } from "./approval/request.js";
export { approvalDecisions, CONSUMED_APPROVALS_KEY } from "./approval/run.js";
export type { ApprovalDecision } from "./approval/run.js";
export { InterruptHook } from "./interrupt-hook.js";
// A custom gate answers this to let a second person approve one of its questions (four eyes).
export { ApproverCheckEvent } from "./approval/approver-check.js";
export type { GateRule, InterruptHookOptions, SubjectFn } from "./interrupt-hook.js";
export type { ApprovalQuorum, QuorumApproval, QuorumState } from "./approval/quorum.js";
export { ToolApprovalHook } from "./tool-approval-hook.js";
export type { ToolApprovalHookOptions, ToolDecision } from "./tool-approval-hook.js";
export { MaxToolCallsGuard } from "./max-calls-guard.js";
export type { MaxToolCallsGuardOptions } from "./max-calls-guard.js";
export { StopGuard, MultiAgentStopGuard, stopGuardFromSignal } from "./stop-guard.js";
export type { StopCheck, StopGuardOptions } from "./stop-guard.js";
export { ToolNameSanitizer, sanitizeToolName, canonicalToolName, closestToolNames } from "./tool-name-sanitizer.js";
export type { SanitizeResult, ToolNameSanitizerOptions } from "./tool-name-sanitizer.js";
export {
  ToolAttachmentsHook,
  unpackAttachments,
  ATTACHMENT_IMAGE_TYPES,
  ATTACHMENT_DOCUMENT_TYPES,
} from "./tool-attachments-hook.js";
export { ForwardedPropsHook } from "./forwarded-props-hook.js";
export type { ForwardedPropsHookOptions } from "./forwarded-props-hook.js";
export { SessionExchange } from "../agent/interrupts/session.js";
export type { SessionSnapshotIn } from "../agent/interrupts/session.js";
export { createSessionExchange, getSessionExchange } from "../agent/interrupts/session-exchange.js";
export type { CreateSessionExchangeOptions } from "../agent/interrupts/session-exchange.js";
export {
  SESSION_EXCHANGE_KEY,
  THREAD_ID_KEY,
  PRINCIPAL_KEY,
  RUN_ID_KEY,
  STREAM_PATH_KEY,
  CONTEXT_ITEMS_KEY,
  SHARED_STATE_KEY,
  FORWARDED_PROPS_KEY,
  DELEGATION_ID_KEY,
} from "../agent/run-context.js";
export { SessionStateHook, restoreSessionState, sessionStateSnapshot } from "./session-state-hook.js";
export type { SessionSnapshot } from "../agent/interrupts/session.js";
export { defaultLogger } from "../logger.js";
export type { Logger } from "../logger.js";
export { editDistance } from "./tool-name-sanitizer.js";
export {
  ContextHook,
  DEFAULT_MIN_CHARS,
  CONTEXT_REPORT_KEY,
  InvalidPointerError,
  InvalidViewSpecError,
  ViewLoadError,
  itemTool,
} from "./context-hook.js";
export type {
  ContextHookOptions,
  ContextItem,
  ContextReport,
  View,
  ViewFn,
  ViewRequest,
  ViewSpec,
} from "./context-hook.js";
export {
  HistoryHook,
  HistoryPolicy,
  HISTORY_EXCHANGE_KEY,
  MemoryHistoryExchange,
  createHistoryExchange,
  getHistoryExchange,
  SUMMARY_ACK,
  SUMMARY_HEADER,
} from "./history-hook.js";
export type { HistoryExchange, HistoryHookOptions, HistoryPolicyOptions } from "./history-hook.js";
export {
  ReferenceHook,
  ReferenceRegistry,
  createReferenceRegistry,
  getReferenceRegistry,
  REFERENCES_KEY,
  referenceSchema,
  referenceTools,
  MANIFEST_HEADER,
} from "./reference-hook.js";
export type { Reference, ReferenceHookOptions } from "./reference-hook.js";
export { StateEffectsHook, STATE_EFFECTS_KEY, STATE_DELTAS_KEY, stateDeltas } from "./state-effects.js";
export type {
  Operation,
  StateChange,
  StateDelta,
  StateEffect,
  StateEffectCall,
  StateEffectsConfig,
  StateEffectsHookOptions,
} from "./state-effects.js";
export {
  EventPublisher,
  EventType,
  streamEventToJSON,
  resolveToolLabel,
  incomingTask,
} from "./event-publisher.js";
export type {
  EventPublisherOptions,
  MultiAgentHandoffEvent,
  StreamEvent,
  StreamEventCallback,
  StreamEventData,
  StreamEventJSON,
  StreamHandler,
  StreamHandlerOptions,
} from "./event-publisher.js";
export {
  MCPCallMetaHook,
  isMcpMetaTool,
  parseImportSpec,
  TOOL_CALL_ID_META_KEY,
  ACTOR_META_KEY,
} from "./mcp-meta-hook.js";
export type { MCPCallMetaHookOptions, McpMetaContext, McpMetaProvider, McpMetaTool } from "./mcp-meta-hook.js";
