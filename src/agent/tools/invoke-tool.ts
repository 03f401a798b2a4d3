/**
 * One claimed call of a batch: its tool's callback, under the call's deadline, and its claim settled.
 *
 * @module
 */
import { toolInterruptId } from "../interrupts/interrupt-id.js";
import { abandonCall } from "../ledger/abandon-call.js";
import { releaseCall, settleCall, type OpenCall } from "../ledger/call-ledger.js";
import type { ToolResultBlock, ToolUseBlock } from "../messages/messages.js";
import { ToolAbandonedError, callDeadline } from "./call-deadline.js";
import { toResultBlock } from "./result-block.js";
import type { BatchOptions } from "./tool-executor.js";
import type { AgentTool, ToolContext, ToolOutput } from "./tools.js";

/**
 * Runs a claimed call under its deadline (see call-deadline.ts) and settles its claim: with its result,
 * its error, later when an abort cut the wait, or with the abandoned mark when it was let go running.
 * @returns The call's result block; throws its error, the run's abort reason, or an outcome question.
 */
export async function invokeTool(
  tool: AgentTool,
  toolUse: ToolUseBlock,
  call: OpenCall,
  o: BatchOptions,
): Promise<ToolResultBlock> {
  // A call that starts after the run was cancelled (a slow hook, a sibling that aborted) never runs.
  if (o.signal.aborted) {
    await releaseCall(call);
    throw o.signal.reason;
  }
  const deadline = callDeadline({
    runSignal: o.signal,
    tool: toolUse.name,
    toolUseId: toolUse.toolUseId,
    timeoutMs: tool.timeoutMs ?? o.agent.toolTimeoutMs,
    graceMs: o.agent.toolGraceMs,
  });
  const context: ToolContext = {
    agent: o.agent,
    toolUse,
    invocationState: o.invocationState,
    get signal() {
      return deadline.signal;
    },
    // Read when the tool asks: the key is a hash most tools never need (see OpenCall.key).
    get idempotencyKey() {
      return call.key;
    },
    interrupt: (request) => o.agent.interruptState.raise(toolInterruptId(toolUse.toolUseId, request.name), request),
  };
  let run: Promise<ToolOutput>;
  try {
    run = tool.call(call.input, context);
  } catch (error) {
    run = Promise.reject(error);
  }
  const limits = { maxChars: tool.maxResultChars, maxMediaBytes: tool.maxResultMediaBytes };
  // One block for the ledger and the transcript: capping a result is not free, so it is done once.
  let block: ToolResultBlock | undefined;
  const toBlock = (out: ToolOutput) => {
    block ??= toResultBlock(toolUse.toolUseId, out, limits);
    return block;
  };
  let output: ToolOutput;
  try {
    output = await deadline.wait(run);
  } catch (error) {
    if (error instanceof ToolAbandonedError) throw abandonCall(call, toolUse, toBlock, error, o.agent);
    // Cut off by an abort, the tool may still be running: its claim settles when it ends, not now.
    // (the ledger must learn what really happened, even after the run was cancelled).
    const settle = (out: ToolOutput | undefined, e?: unknown) => settleCall(call, toolUse.toolUseId, toBlock, out, e);
    if (o.signal.aborted) run.then(settle, (e: unknown) => settle(undefined, e));
    else await settle(undefined, error);
    throw error;
  }
  // Settled before AfterToolCall hooks run: a hook that throws then cannot make a retry run it again.
  const recorded = settleCall(call, toolUse.toolUseId, toBlock, output);
  if (recorded) await recorded;
  return toBlock(output);
}
