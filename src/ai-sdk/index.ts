/**
 * `kaboo-workflows/ai-sdk`: governed approvals for Vercel AI SDK apps (`ai` ≥ 7, an optional peer).
 * `kabooToolApproval` is a `toolApproval` built from `InterruptHook`'s gate rules, with remembered
 * grants in a grant store; `withLedger` puts every tool's `execute` through the execution ledger, so
 * an approved call runs once; `approvalReason` is what the client sends to choose a scope, and
 * `signApprovalReason` the server-signed form a gate with a `secret` requires.
 *
 * @module
 */
export { kabooToolApproval } from "./tool-approval.js";
export type { KabooToolApprovalFunction, KabooToolApprovalOptions, ToolApprovalCall } from "./tool-approval.js";
export { withLedger } from "./with-ledger.js";
export type { LedgeredExecutionOptions, WithLedgerOptions } from "./with-ledger.js";
export { APPROVAL_REASON_VERSION, answerFor, approvalReason, readApprovalReason } from "./answer.js";
export type { ApprovalReasonInput, FoundAnswer } from "./answer.js";
export { ApprovalSignatureError, signApprovalReason } from "./signed-answer.js";
export type { SignedApprovalInput } from "./signed-answer.js";
export { ApprovalQuorumError, approvalsReason } from "./quorum.js";
export { ApprovalEditError, CallOutcomeUnknownError, RecordedCallFailureError } from "./errors.js";
export type { GateRule, SubjectFn } from "../hooks/interrupt-hook.js";
export type { ApprovalScope } from "../hooks/approval/request.js";
