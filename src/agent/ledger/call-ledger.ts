/**
 * How one call goes through the execution ledger: claim before it runs, settle with its result,
 * and ask a person when its outcome is unknown.
 *
 * @module
 */
import { CallInProgressError, describe } from "../../errors.js";
import type { Agent } from "../agent.js";
import { recordExecution } from "../audit/audit-execution.js";
import { runAudit, type RunAudit } from "../audit/audit-record.js";
import type { InvocationState } from "../events.js";
import { InterruptSignal } from "../interrupts/interrupt.js";
import { toolInterruptId } from "../interrupts/interrupt-id.js";
import { callId, runLedger } from "../run-context.js";
import type { ExecutionLedger, LedgerResult } from "./ledger.js";
import type { CallName } from "./memory-ledger.js";
import { asShipped, claimIn, NamedCall, releaseIn, settleIn } from "./memory-sync.js";
import type { JsonValue, ToolResultBlock, ToolUseBlock } from "../messages/messages.js";
import { OUTCOME_UNKNOWN, abandonedClaim, readOutcomeAnswer, type OutcomeUnknownRequest } from "./outcome-answer.js";
import { toResultBlock } from "../tools/result-block.js";
import { errorResult, type AgentTool, type ToolOutput } from "../tools/tools.js";

/** A call the runner may execute: its validated input, its key, and its claim (absent when it skips the ledger). */
export class OpenCall extends NamedCall {
  /** The claim, and what the ledger is asked with: the call itself (a memory ledger as it ships), else its key. */
  claim?: { ledger: ExecutionLedger; token: string; name: string | CallName };
  /** Where its execution is recorded once it settles, and how an unknown outcome was answered. */
  audit?: { trail: RunAudit; tool: string; answer: "run_again" | null };

  /**
   * @param input - The validated input.
   * @param text - The call's text (`callText`), which its key hashes.
   */
  constructor(
    readonly input: unknown,
    text: string,
  ) {
    super(text);
  }
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
  const call = new OpenCall(
    input,
    callId(o.invocationState, toolUse.toolUseId, "callInput" in o ? o.callInput : input),
  );
  const hints = tool.annotations;
  if (!o.recordAll && (hints?.readOnlyHint === true || hints?.idempotentHint === true)) return call;
  const ledger = runLedger(o.agent, o.invocationState);
  // The memory ledger as it ships is asked with the call itself: it keeps it under its text, not hashed.
  const name = asShipped(ledger) ? call : call.key;
  const lease = o.leaseMs === undefined ? undefined : { leaseMs: o.leaseMs };
  const trail = runAudit(o.agent, o.invocationState);
  const first = claimIn(ledger, name, lease);
  if (!(first instanceof Promise) && first.status === "claimed")
    return held(call, ledger, first.token, name, trail, toolUse.name, null);
  return (async () => {
    let outcome = await first;
    // The key is hashed only for an audit record (the default ledger names the call by its text).
    const facts = () => ({ tool: toolUse.name, toolUseId: toolUse.toolUseId, idempotencyKey: call.key });
    let answer: "run_again" | null = null;
    // The question names the claim it is about: an answer to it never stands for a later claim that was
    // lost too (a "run it again" that died mid-call again must be asked about again, or it runs twice).
    const ask = (at: number, why?: "abandoned") =>
      readOutcomeAnswer(
        o.agent.interruptState.raise(toolInterruptId(toolUse.toolUseId, `${OUTCOME_UNKNOWN}@${at}`), {
          name: OUTCOME_UNKNOWN,
          reason: unknownRequest(toolUse, input, at, why),
        }),
      );
    const answered = (action: "treat_as_done" | "cancel", token: string) =>
      settleAnswer(action, { ledger, name, token, trail, toolUse, facts: facts() });
    if (outcome.status === "unknown") {
      const action = ask(outcome.claimedAt);
      outcome = await claimIn(ledger, name, { ...lease, takeOverUnknown: true });
      if (outcome.status === "claimed" && action !== "run_again") return answered(action, outcome.token);
      if (outcome.status === "claimed") answer = "run_again";
    }
    // Abandoned with its callback still running: asked as a lost claim is. "Treat as done" and "cancel" are
    // settled under its own token (a late result settles over them, and then the ledger answers instead);
    // "run it again" takes the call over under a token of its own, so a late result records nothing over it.
    const lost = outcome.status === "done" ? abandonedClaim(outcome.result) : undefined;
    if (lost) {
      const action = ask(lost.at, "abandoned");
      if (action !== "run_again") return answered(action, lost.token);
      outcome = await claimIn(ledger, name, { ...lease, takeOverAbandoned: lost.token });
      // A ledger of one's own that does not know the option answers with the marker again: as before it.
      if (outcome.status === "done" && abandonedClaim(outcome.result)?.token === lost.token)
        return held(call, ledger, lost.token, name, trail, toolUse.name, "run_again");
      if (outcome.status === "claimed") answer = "run_again";
    }
    if (outcome.status === "done") {
      await recordExecution(trail, { ...facts(), claim: "done", result: outcome.result });
      return { result: toResultBlock(toolUse.toolUseId, outcome.result) };
    }
    if (outcome.status === "running")
      throw new CallInProgressError(toolUse.name, toolUse.toolUseId, outcome.leaseExpiresAt);
    if (outcome.status === "unknown") throw new CallInProgressError(toolUse.name, toolUse.toolUseId, outcome.claimedAt);
    return held(call, ledger, outcome.token, name, trail, toolUse.name, answer);
  })();
}

/**
 * Settles a call whose outcome was unknown with the person's answer ("it went through" or "do not run it
 * again"), under `token`, and records the answer in the trail.
 */
async function settleAnswer(
  action: "treat_as_done" | "cancel",
  o: {
    ledger: ExecutionLedger;
    name: string | CallName;
    token: string;
    trail: RunAudit | undefined;
    toolUse: ToolUseBlock;
    facts: { tool: string; toolUseId: string; idempotencyKey: string };
  },
): Promise<{ result: ToolResultBlock }> {
  const tool = o.toolUse.name;
  const text =
    action === "treat_as_done"
      ? `The person confirmed that the call to "${tool}" already ran; its result was not recorded.`
      : `The person chose not to run the call to "${tool}" again; whether it ran before is unknown.`;
  const result: LedgerResult = {
    status: action === "treat_as_done" ? "success" : "error",
    content: [{ type: "text", text }],
  };
  await settleIn(o.ledger, o.name, o.token, result);
  await recordExecution(o.trail, { ...o.facts, claim: "unknown", result, answer: action });
  return { result: toResultBlock(o.toolUse.toolUseId, result) };
}

/** `call`, now held by the caller. */
function held(
  call: OpenCall,
  ledger: ExecutionLedger,
  token: string,
  name: string | CallName,
  trail: RunAudit | undefined,
  tool: string,
  answer: "run_again" | null,
): OpenCall {
  call.claim = { ledger, token, name };
  if (trail) call.audit = { trail, tool, answer };
  return call;
}

/** The `reason` of an {@link OUTCOME_UNKNOWN} question about a call (`abandoned`: let go still running). */
export function unknownRequest(toolUse: ToolUseBlock, input: unknown, claimedAt: number, why?: "abandoned"): JsonValue {
  const lost =
    why === "abandoned"
      ? "was abandoned before it ended (it ran past its deadline, or the run was stopped)"
      : "result was lost (the page or server stopped mid-call)";
  const request: OutcomeUnknownRequest = {
    kind: "outcome_unknown",
    tool: toolUse.name,
    toolUseId: toolUse.toolUseId,
    input: (input ?? null) as JsonValue,
    claimedAt,
    message: `The call to "${toolUse.name}" started but its ${lost}. It may have run. Run it again, treat it as done, or cancel?`,
    actions: ["run_again", "treat_as_done", "cancel"],
  };
  return request as unknown as JsonValue;
}

/**
 * Records a finished call in the ledger: its `output` (as `toBlock` caps it for the transcript), or the
 * `error` it threw (an interrupt releases the claim instead). Synchronous when the ledger answers so and
 * no audit log records it (watchers alone are told synchronously). Never throws or rejects: a failed write leaves the claim to run out, and
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
  const { ledger, token, name } = claim;
  try {
    if (error instanceof InterruptSignal) return releaseIn(ledger, name, token).then(undefined, ignore);
    const result = toLedger(output ? toBlock(output) : errorResult(toolUseId, `Error: ${describe(error)}`));
    const audit = call.audit;
    const settled = settleIn(ledger, name, token, result);
    if (!audit) return settled?.then(undefined, ignore);
    if (!audit.trail.log) {
      // Watchers alone (a tracing hook), no log: told at once, as synchronously as without them, and without
      // the key and digest a stored entry needs.
      audit.trail.tell?.({
        kind: "execution",
        tool: audit.tool,
        toolUseId,
        idempotencyKey: "",
        claim: "claimed",
        status: result.status,
        resultDigest: null,
        answer: audit.answer,
      });
      return settled?.then(undefined, ignore);
    }
    const record = () =>
      recordExecution(audit.trail, {
        tool: audit.tool,
        toolUseId,
        idempotencyKey: call.key,
        claim: "claimed",
        result,
        answer: audit.answer,
      });
    return (settled ? settled.then(record) : record()).then(undefined, ignore);
  } catch {
    return;
  }
}

const ignore = () => undefined;

/** Drops the claim of a call that provably did not start. Never rejects. */
export function releaseCall(call: OpenCall): Promise<void> {
  return call.claim
    ? releaseIn(call.claim.ledger, call.claim.name, call.claim.token).then(undefined, () => undefined)
    : Promise.resolve();
}

function toLedger(output: ToolOutput | ToolResultBlock): LedgerResult {
  const result: LedgerResult = { status: output.status, content: output.content };
  if (output.structuredContent !== undefined) result.structuredContent = output.structuredContent;
  return result;
}
