/**
 * A call the runner let go with its callback still running (see `ToolAbandonedError`): its ledger claim is
 * marked abandoned, so that the next claim asks a person whether it went through, and a result that still
 * comes is recorded over the mark.
 *
 * @module
 */
import { describe } from "../../errors.js";
import type { ToolAbandonedError } from "../tools/call-deadline.js";
import type { Agent } from "../agent.js";
import { InterruptSignal } from "../interrupts/interrupt.js";
import { toolInterruptId } from "../interrupts/interrupt-id.js";
import type { ToolResultBlock, ToolUseBlock } from "../messages/messages.js";
import type { ToolOutput } from "../tools/tools.js";
import { type OpenCall, settleCall, unknownRequest } from "./call-ledger.js";
import { settleIn } from "./memory-sync.js";
import { OUTCOME_UNKNOWN, abandonedResult } from "./outcome-answer.js";

const ignore = () => undefined;

/**
 * Lets go of a call whose callback did not settle in time ({@link ToolAbandonedError}): its claim is settled
 * with the abandoned marker (the next claim asks whether it went through), and a result that still comes is
 * settled over it, in the ledger and the audit trail, never handed to the run. A call let go because its
 * run was stopped asks that question in this run already.
 * @returns What the runner throws for the call: the outcome question's InterruptSignal, or `abandoned`.
 */
export function abandonCall(
  call: OpenCall,
  toolUse: ToolUseBlock,
  toBlock: (output: ToolOutput) => ToolResultBlock,
  abandoned: ToolAbandonedError,
  agent: Agent,
): unknown {
  const claim = call.claim;
  if (!claim) return abandoned;
  const at = Date.now();
  const marked = (async () =>
    settleIn(
      claim.ledger,
      claim.name,
      claim.token,
      abandonedResult({ token: claim.token, at }, abandoned.message),
    ))().then(undefined, ignore);
  const late = (out: ToolOutput | undefined, error?: unknown) =>
    // An interrupt raised that late asks nobody: it is recorded as the call's error, never as a release.
    marked.then(() =>
      settleCall(call, toolUse.toolUseId, toBlock, out, error instanceof InterruptSignal ? describe(error) : error),
    );
  abandoned.late.then(
    (out) => late(out as ToolOutput),
    (error: unknown) => late(undefined, error),
  );
  if (abandoned.why !== "stopped") return abandoned;
  try {
    agent.interruptState.raise(toolInterruptId(toolUse.toolUseId, `${OUTCOME_UNKNOWN}@${at}`), {
      name: OUTCOME_UNKNOWN,
      reason: unknownRequest(toolUse, call.input, at, "abandoned"),
    });
  } catch (signal) {
    return signal;
  }
  return abandoned;
}
