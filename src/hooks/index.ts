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
} from "./approval.js";
export type { ApprovalAnswer, ApprovalRequest, ApprovalScope, ApprovalSubject, Decision } from "./approval.js";
export { approvalDecisions, CONSUMED_APPROVALS_KEY } from "./approval-run.js";
export type { ApprovalDecision } from "./approval-run.js";
export { InterruptHook } from "./interrupt-hook.js";
export type { GateRule, InterruptHookOptions, SubjectFn } from "./interrupt-hook.js";
export { ToolApprovalHook } from "./tool-approval-hook.js";
export type { ToolApprovalHookOptions, ToolDecision } from "./tool-approval-hook.js";
export { MaxToolCallsGuard } from "./max-calls-guard.js";
export type { MaxToolCallsGuardOptions } from "./max-calls-guard.js";
export { StopGuard, MultiAgentStopGuard, stopGuardFromSignal } from "./stop-guard.js";
export type { StopCheck, StopGuardOptions } from "./stop-guard.js";
export { ToolNameSanitizer, sanitizeToolName, canonicalToolName, closestToolNames } from "./tool-name-sanitizer.js";
export type { SanitizeResult, ToolNameSanitizerOptions } from "./tool-name-sanitizer.js";
export { ToolAttachmentsHook, unpackAttachments, ATTACHMENT_IMAGE_TYPES, ATTACHMENT_DOCUMENT_TYPES } from "./tool-attachments-hook.js";
export { ForwardedPropsHook, FORWARDED_PROPS_KEY } from "./forwarded-props-hook.js";
export type { ForwardedPropsHookOptions } from "./forwarded-props-hook.js";
export {
  SessionExchange,
  createSessionExchange,
  getSessionExchange,
  SESSION_EXCHANGE_KEY,
  THREAD_ID_KEY,
  RUN_ID_KEY,
  CONTEXT_ITEMS_KEY,
  SHARED_STATE_KEY,
} from "./session-exchange.js";
export type { CreateSessionExchangeOptions, SessionSnapshotIn } from "./session-exchange.js";
export { SessionStateHook, restoreSessionState, sessionStateSnapshot } from "./session-state-hook.js";
export type { SessionSnapshot } from "./session-state-hook.js";
export { defaultLogger } from "./logger.js";
export type { Logger } from "./logger.js";
