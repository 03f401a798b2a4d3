/**
 * `kaboo-workflows`: the runner core — Agent, hook events and registry,
 * interrupts, tools, messages, the Model interface and the ScriptedModel.
 *
 * @module
 */
export { Agent } from "./agent/agent.js";
export type { AgentConfig, AgentInput, InvokeOptions } from "./agent/agent.js";
export {
  HookEvent,
  AgentInitializedEvent,
  BeforeInvocationEvent,
  AfterInvocationEvent,
  MessageAddedEvent,
  BeforeModelCallEvent,
  AfterModelCallEvent,
  BeforeToolCallEvent,
  AfterToolCallEvent,
  MultiAgentInitializedEvent,
  BeforeMultiAgentInvocationEvent,
  AfterMultiAgentInvocationEvent,
  BeforeNodeCallEvent,
  AfterNodeCallEvent,
} from "./agent/events.js";
export type { AfterToolCallInit, InvocationState, Orchestrator } from "./agent/events.js";
export { HookRegistry } from "./agent/hooks.js";
export type { HookCallback, HookEventClass, HookProvider } from "./agent/hooks.js";
export {
  InterruptState,
  InterruptSignal,
  INTERRUPT_STATE_VERSION,
  jsonValueSchema,
} from "./agent/interrupts/interrupt.js";
export type {
  Interrupt,
  InterruptRequest,
  InterruptResponse,
  InterruptStateJson,
} from "./agent/interrupts/interrupt.js";
export { textMessage, messageText, toolResultText } from "./agent/messages/messages.js";
export type {
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  JsonObject,
  JsonPart,
  JsonValue,
  MediaSource,
  Message,
  ReasoningBlock,
  Role,
  TextBlock,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from "./agent/messages/messages.js";
export type { AgentMetrics, ToolMetrics } from "./agent/metrics.js";
export { DEFAULT_LEASE_MS, executionKey } from "./agent/ledger/ledger.js";
export type {
  ClaimOptions,
  ClaimOutcome,
  ExecutionKeyParts,
  ExecutionLedger,
  LedgerResult,
} from "./agent/ledger/ledger.js";
export { MemoryExecutionLedger } from "./agent/ledger/memory-ledger.js";
export { OUTCOME_UNKNOWN, readOutcomeAnswer } from "./agent/ledger/outcome-answer.js";
export type { OutcomeAction, OutcomeUnknownRequest } from "./agent/ledger/outcome-answer.js";
export type { MemoryExecutionLedgerOptions } from "./agent/ledger/memory-ledger.js";
export {
  AUDIT_ENTRY_VERSION,
  AuditWriteError,
  ChainedAuditLog,
  MemoryAuditLog,
  auditEntryHash,
  auditEntrySchema,
} from "./agent/audit/audit.js";
export type {
  AuditCallRecord,
  AuditChainFields,
  AuditChainStorage,
  AuditDecisionRecord,
  AuditEntry,
  AuditExecutionRecord,
  AuditGrantUseRecord,
  AuditLog,
  AuditRecord,
  AuditRequestRecord,
  AuditRevocationRecord,
  AuditTraced,
  AuditTraceIds,
  MemoryAuditLogOptions,
} from "./agent/audit/audit.js";
export { auditFromJsonLines, auditToJsonLines, verifyAuditTrail } from "./agent/audit/audit-verify.js";
export type { AuditProblem, AuditVerification, VerifyAuditOptions } from "./agent/audit/audit-verify.js";
export { jsonDigest } from "./agent/audit/digest.js";
export { ModelInputChain } from "./agent/middleware.js";
export type { ModelInput, ModelInputContext, ModelInputMiddleware } from "./agent/middleware.js";
export { estimateTokens } from "./agent/messages/transcript-size.js";
export type { AgentResult, StopReason } from "./agent/result.js";
export { AgentState } from "./agent/state.js";
export type { AgentStreamEvent } from "./agent/stream-events.js";
export type { ToolExecutor } from "./agent/tools/tool-executor.js";
export { tool, toToolOutput, errorResult } from "./agent/tools/tools.js";
export {
  capToolResult,
  DEFAULT_MAX_RESULT_DEPTH,
  DEFAULT_MAX_RESULT_MEDIA_BYTES,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
} from "./agent/tools/result-cap.js";
export type { ToolResultLimits } from "./agent/tools/result-cap.js";
export { DEFAULT_MAX_REQUEST_MEDIA_BYTES } from "./agent/limits.js";
export type {
  AgentTool,
  JsonSchemaToolOptions,
  ToolAnnotations,
  ToolContext,
  ToolOptions,
  ToolOutput,
  ValidationResult,
} from "./agent/tools/tools.js";
export type { StandardJSONSchemaV1, StandardSchemaV1 } from "./agent/tools/standard-schema.js";
export { ScriptedModel } from "./models/scripted.js";
export type { ScriptedModelOptions, ScriptedRequest, ScriptedResponder, ScriptedTurn } from "./models/scripted.js";
export type {
  ContentBlockDelta,
  ContentBlockStart,
  Model,
  ModelStopReason,
  ModelStreamEvent,
  ModelStreamOptions,
  ToolSpec,
  Usage,
} from "./agent/model.js";
export {
  KabooError,
  UserError,
  UnauthenticatedError,
  HookError,
  HookErrors,
  ToolBatchError,
  CallInProgressError,
  ToolTimeoutError,
  UnknownInterruptIdError,
  PartialResumeError,
  InvalidInterruptResponseError,
  PendingInterruptsError,
  InterruptExpiredError,
  InvalidStateError,
  InvalidRunContextError,
  ModelStreamError,
  MaxModelRetriesError,
  ToolDefinitionError,
} from "./errors.js";
export type { ModelStreamErrorReason } from "./errors.js";
export type { BatchCall } from "./errors.js";
