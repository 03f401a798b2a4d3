/**
 * How one call goes through the execution ledger: claim before it runs, settle with its result,
 * and ask a person when its outcome is unknown.
 *
 * @module
 */
import { CallInProgressError, describe } from "../errors.js";
import type { Agent } from "./agent.js";
import { recordExecution } from "./audit-execution.js";
import { runAudit, type RunAudit } from "./audit-record.js";
import type { InvocationState } from "./events.js";
import { InterruptSignal } from "./interrupt.js";
import { toolInterruptId } from "./interrupt-id.js";
import { callKey, runLedger } from "./run-context.js";
import type { ExecutionLedger, LedgerResult } from "./ledger.js";
import { MemoryExecutionLedger } from "./memory-ledger.js";
import type { JsonValue, ToolResultBlock, ToolUseBlock } from "./messages.js";
import { OUTCOME_UNKNOWN, readOutcomeAnswer, type OutcomeUnknownRequest } from "./outcome-answer.js";
import { toResultBlock } from "./result-block.js";
import { errorResult, type AgentTool, type ToolOutput } from "./tools.js";

/** A call the runner may execute: its validated input, its key, and its claim (absent when it skips the ledger). */
export interface OpenCall {
  input: unknown;
  key: string;
  claim?: { ledger: ExecutionLedger; token: string };
  /** Where its execution is recorded once it settles, and how an unknown outcome was answered. */
  audit?: { trail: RunAudit; tool: string; answer: "run_again" | null };
}

/** Options of {@link openCall}. */
export interface OpenCallOptions {
  agent: Agent;
  invocationState: InvocationState;
  /** Claim read-only and idempotent tools too. */
  recordAll: boolean;
  leaseMs?: number | undefined;
  /**
   * The arguments as the model made the call, before hooks and the person's edits: the key's
   * input, so one call is one ledger entry however it is answered (two tabs that answer one
   * approval differently, a retry with another edit). Default: the validated input.
   */
  callInput?: unknown;
}

/**
 * Claims a validated call. Returns the call to run, or the result to use instead (recorded, or
 * the person's answer to an outcome-unknown question); synchronously when the ledger answers so (the
 * default memory ledger) and holds the call.
 * @throws CallInProgressError when another holder runs it now; InterruptSignal to ask a person.
 */
export function openCall(
  tool: AgentTool,
  toolUse: ToolUseBlock,
  input: unknown,
  o: OpenCallOptions,
): OpenCall | Promise<OpenCall | { result: ToolResultBlock }> {
  const key = callKey(o.invocationState, toolUse.toolUseId, "callInput" in o ? o.callInput : input);
  const hints = tool.annotations;
  if (!o.recordAll && (hints?.readOnlyHint === true || hints?.idempotentHint === true)) return { input, key };
  const ledger = runLedger(o.agent, o.invocationState);
  const leaseMs = o.leaseMs;
  const trail = runAudit(o.agent, o.invocationState);
  const first =
    ledger instanceof MemoryExecutionLedger && ledger.claim === memoryClaim
      ? ledger.claimNow(key, leaseMs === undefined ? undefined : { leaseMs })
      : undefined;
  if (first?.status === "claimed") return held(input, key, ledger, first.token, trail, toolUse.name, null);
  return (async () => {
    const lease = leaseMs === undefined ? {} : { leaseMs };
    let outcome = first ?? (await ledger.claim(key, lease));
    const facts = { tool: toolUse.name, toolUseId: toolUse.toolUseId, idempotencyKey: key };
    let answer: "run_again" | null = null;
    if (outcome.status === "unknown") {
      // The question names the claim it is about: an answer to it never stands for a later claim that was
      // lost too (a "run it again" that died mid-call again must be asked about again, or it runs twice).
      const id = toolInterruptId(toolUse.toolUseId, `${OUTCOME_UNKNOWN}@${outcome.claimedAt}`);
      const action = readOutcomeAnswer(
        o.agent.interruptState.raise(id, {
          name: OUTCOME_UNKNOWN,
          reason: unknownRequest(toolUse, input, outcome.claimedAt),
        }),
      );
      outcome = await ledger.claim(key, { ...lease, takeOverUnknown: true });
      if (outcome.status === "claimed" && action !== "run_again") {
        const text =
          action === "treat_as_done"
            ? `The person confirmed that the call to "${toolUse.name}" already ran; its result was not recorded.`
            : `The person chose not to run the call to "${toolUse.name}" again; whether it ran before is unknown.`;
        const result: LedgerResult = {
          status: action === "treat_as_done" ? "success" : "error",
          content: [{ type: "text", text }],
        };
        await ledger.settle(key, outcome.token, result);
        await recordExecution(trail, { ...facts, claim: "unknown", result, answer: action });
        return { result: toResultBlock(toolUse.toolUseId, result) };
      }
      if (outcome.status === "claimed") answer = "run_again";
    }
    if (outcome.status === "done") {
      await recordExecution(trail, { ...facts, claim: "done", result: outcome.result });
      return { result: toResultBlock(toolUse.toolUseId, outcome.result) };
    }
    if (outcome.status === "running")
      throw new CallInProgressError(toolUse.name, toolUse.toolUseId, outcome.leaseExpiresAt);
    if (outcome.status === "unknown") throw new CallInProgressError(toolUse.name, toolUse.toolUseId, outcome.claimedAt);
    return held(input, key, ledger, outcome.token, trail, toolUse.name, answer);
  })();
}

/** The call the caller now holds. */
function held(
  input: unknown,
  key: string,
  ledger: ExecutionLedger,
  token: string,
  trail: RunAudit | undefined,
  tool: string,
  answer: "run_again" | null,
): OpenCall {
  const open: OpenCall = { input, key, claim: { ledger, token } };
  if (trail) open.audit = { trail, tool, answer };
  return open;
}

// A memory ledger whose `claim` (`settle`) is its own answers through its synchronous form (`claimNow`,
// `settleNow`); a subclass that overrides the method is always asked through it.
const memoryClaim = MemoryExecutionLedger.prototype.claim;
const memorySettle = MemoryExecutionLedger.prototype.settle;

function unknownRequest(toolUse: ToolUseBlock, input: unknown, claimedAt: number): JsonValue {
  const request: OutcomeUnknownRequest = {
    kind: "outcome_unknown",
    tool: toolUse.name,
    toolUseId: toolUse.toolUseId,
    input: (input ?? null) as JsonValue,
    claimedAt,
    message: `The call to "${toolUse.name}" started but its result was lost (the page or server stopped mid-call). It may have run. Run it again, treat it as done, or cancel?`,
    actions: ["run_again", "treat_as_done", "cancel"],
  };
  return request as unknown as JsonValue;
}

/**
 * Records a finished call in the ledger: its `output` (as `toBlock` caps it for the transcript), or the
 * `error` it threw (an interrupt releases the claim instead). Synchronous when the ledger answers so and
 * no audit trail records it. Never throws or rejects: a failed write leaves the claim to run out, and
 * the next claim asks a person.
 */
export function settleCall(
  call: OpenCall,
  toolUseId: string,
  toBlock: (output: ToolOutput) => ToolResultBlock,
  output: ToolOutput | undefined,
  error?: unknown,
): undefined | Promise<unknown> {
  const claim = call.claim;
  if (!claim) return;
  const { ledger, token } = claim;
  try {
    if (error instanceof InterruptSignal) return ledger.release(call.key, token).then(undefined, ignore);
    const result = toLedger(output ? toBlock(output) : errorResult(toolUseId, `Error: ${describe(error)}`));
    const audit = call.audit;
    if (!audit && ledger instanceof MemoryExecutionLedger && ledger.settle === memorySettle)
      return void ledger.settleNow(call.key, token, result);
    const record = () =>
      audit &&
      recordExecution(audit.trail, {
        tool: audit.tool,
        toolUseId,
        idempotencyKey: call.key,
        claim: "claimed",
        result,
        answer: audit.answer,
      });
    const settled =
      ledger instanceof MemoryExecutionLedger && ledger.settle === memorySettle
        ? ledger.settleNow(call.key, token, result)
        : ledger.settle(call.key, token, result);
    return (settled ? settled.then(record) : record())?.then(undefined, ignore);
  } catch {
    return;
  }
}

const ignore = () => undefined;

/** Drops the claim of a call that provably did not start. Never rejects. */
export function releaseCall(call: OpenCall): Promise<void> {
  return call.claim
    ? call.claim.ledger.release(call.key, call.claim.token).then(undefined, () => undefined)
    : Promise.resolve();
}

function toLedger(output: ToolOutput | ToolResultBlock): LedgerResult {
  const result: LedgerResult = { status: output.status, content: output.content };
  if (output.structuredContent !== undefined) result.structuredContent = output.structuredContent;
  return result;
}
