/**
 * One tool batch: BeforeToolCall → validate → run → AfterToolCall per call,
 * concurrently (default) or in order, with interrupts collected across the batch.
 *
 * @module
 */
import { toolInterruptId } from "./interrupt-id.js";
import { describe } from "../errors.js";
import type { Agent } from "./agent.js";
import { AfterToolCallEvent, BeforeToolCallEvent, type InvocationState } from "./events.js";
import { InterruptSignal } from "./interrupt.js";
import type { ToolResultBlock, ToolUseBlock } from "./messages.js";
import { recordTool, type AgentMetrics } from "./metrics.js";
import type { AgentStreamEvent } from "./stream-events.js";
import { errorResult, toResultBlock, type AgentTool, type ToolContext, type ToolOutput } from "./tools.js";
import { openCall, releaseCall, settleWhenDone, type OpenCall } from "./call-ledger.js";
import { linkedAbort, raceAbort } from "./abort.js";

/** How a batch's calls run. */
export type ToolExecutor = "concurrent" | "sequential";

/** What happened to one call. */
export type CallOutcome =
  /** `cutOff`: an abort ended the wait while the tool was running (it may still finish). */
  | { kind: "done"; toolUse: ToolUseBlock; result: ToolResultBlock; cutOff?: boolean }
  | { kind: "interrupted"; toolUse: ToolUseBlock };

/** The outcome of a batch. */
export interface BatchOutcome {
  outcomes: CallOutcome[];
  /** A hook set `stopLoop`. */
  stopLoop: boolean;
}

/** Options of {@link runToolBatch}. */
export interface BatchOptions {
  agent: Agent;
  invocationState: InvocationState;
  metrics: AgentMetrics;
  executor: ToolExecutor;
  maxToolRetries: number;
  signal: AbortSignal;
  emit: (event: AgentStreamEvent) => void;
  /** Ledger settings of the agent: claim hinted tools too, and the lease. */
  ledger?: { recordAll: boolean; leaseMs?: number | undefined };
}

/**
 * A batch that failed: the failure, and the outcomes of the calls that got one before it.
 * The loop turns it into the error the caller sees ({@link ToolBatchError} when some calls ran).
 */
export class BatchFailure extends Error {
  readonly outcomes: readonly CallOutcome[];
  constructor(cause: unknown, outcomes: readonly CallOutcome[]) {
    super("tool batch failed", { cause });
    this.outcomes = outcomes;
  }
}

const CANCELLED_BY_ABORT = "The run was cancelled before this tool finished.";

/**
 * Runs the calls of one model response.
 * @param toolUses - Calls still to run (those already answered on a resume are excluded by the caller).
 */
export async function runToolBatch(toolUses: readonly ToolUseBlock[], o: BatchOptions): Promise<BatchOutcome> {
  let stopLoop = false;
  // Concurrent batches swap in a signal of their own (see below); runOne reads it through `opts`.
  let opts = o;
  const runOne = async (original: ToolUseBlock): Promise<CallOutcome> => {
    const { agent, invocationState } = o;
    // A deep copy: a hook that edits the input in place and then interrupts must not alter the paused call.
    const before = new BeforeToolCallEvent(agent, invocationState, structuredClone(original), agent.tool(original.name));
    try {
      await agent.hooks.invoke(before);
    } catch (error) {
      if (error instanceof InterruptSignal) return { kind: "interrupted", toolUse: original };
      throw error;
    }
    if (before.stopLoop) stopLoop = true;
    // The id links the call to its result and its interrupts; hooks may rewrite the call, not its identity.
    const toolUse: ToolUseBlock = { ...before.toolUse, type: "toolUse", toolUseId: original.toolUseId };
    const selected = before.selectedTool;
    // Any value but `false` cancels (an empty message gets the default): a gate must never pass by accident.
    const cancelMessage =
      before.cancel === false
        ? undefined
        : typeof before.cancel === "string" && before.cancel !== ""
          ? before.cancel
          : `Tool call "${toolUse.name}" was cancelled.`;
    opts.emit({ type: "toolStart", toolUse });
    let call: OpenCall | ToolResultBlock | undefined;
    if (cancelMessage === undefined && selected) {
      try {
        call = await prepareCall(selected, toolUse, original.input, opts);
      } catch (e) {
        if (e instanceof InterruptSignal) return { kind: "interrupted", toolUse };
        throw e;
      }
    }
    let cutOff = false;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      let result: ToolResultBlock;
      let error: unknown;
      if (cancelMessage !== undefined) result = errorResult(toolUse.toolUseId, cancelMessage);
      else if (!selected || !call) result = errorResult(toolUse.toolUseId, unknownToolMessage(toolUse.name, agent));
      else if ("type" in call) result = call;
      else {
        try {
          result = await invokeTool(selected, toolUse, call, opts);
        } catch (e) {
          if (e instanceof InterruptSignal) return { kind: "interrupted", toolUse };
          error = e;
          cutOff = opts.signal.aborted;
          result = errorResult(toolUse.toolUseId, opts.signal.aborted ? CANCELLED_BY_ABORT : `Error: ${describe(e)}`);
        }
      }
      recordTool(opts.metrics, toolUse.name, result.status === "success", performance.now() - started);
      const after = new AfterToolCallEvent({
        agent,
        invocationState,
        toolUse,
        selectedTool: selected,
        result,
        error,
        cancelMessage,
      });
      try {
        await agent.hooks.invoke(after);
      } catch (e) {
        if (e instanceof InterruptSignal) return { kind: "interrupted", toolUse };
        throw e;
      }
      if (after.stopLoop) stopLoop = true;
      if (after.retry && attempt <= opts.maxToolRetries && cancelMessage === undefined && !opts.signal.aborted) continue;
      const final = { ...after.result, toolUseId: toolUse.toolUseId };
      opts.emit({ type: "toolResult", toolUse, result: final });
      return cutOff ? { kind: "done", toolUse, result: final, cutOff } : { kind: "done", toolUse, result: final };
    }
  };

  if (o.executor === "sequential") {
    const outcomes: CallOutcome[] = [];
    try {
      for (const t of toolUses) outcomes.push(await runOne(t));
    } catch (error) {
      throw new BatchFailure(error, outcomes);
    }
    return { outcomes, stopLoop };
  }
  // When one call fails the run (a hook threw), its siblings are cancelled rather than awaited:
  // a hanging tool must not keep a failed run open.
  const batch = linkedAbort(o.signal);
  opts = { ...o, signal: batch.signal };
  const settled = await Promise.allSettled(
    toolUses.map((t) =>
      runOne(t).catch((error: unknown) => {
        batch.abort(error);
        throw error;
      }),
    ),
  ).finally(() => batch.unlink());
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    const outcomes = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    throw new BatchFailure(failed.reason, outcomes);
  }
  return { outcomes: settled.map((s) => (s as PromiseFulfilledResult<CallOutcome>).value), stopLoop };
}

/** Validates a call and claims it in the ledger; a result instead when it must not run. */
async function prepareCall(
  tool: AgentTool,
  toolUse: ToolUseBlock,
  callInput: unknown,
  o: BatchOptions,
): Promise<OpenCall | ToolResultBlock> {
  if (typeof toolUse.input === "string") {
    return errorResult(
      toolUse.toolUseId,
      `The arguments for "${toolUse.name}" are not valid JSON. Call the tool again with a JSON object matching its schema.`,
    );
  }
  let input: unknown = toolUse.input;
  if (tool.validate) {
    const checked = await tool.validate(input);
    if (!checked.ok) return errorResult(toolUse.toolUseId, `Invalid input for tool "${toolUse.name}":\n${checked.error}`);
    input = checked.value;
  }
  const opened = await openCall(
    tool,
    toolUse,
    input,
    o.ledger
      ? { ...o.ledger, agent: o.agent, invocationState: o.invocationState, callInput }
      : { agent: o.agent, invocationState: o.invocationState, recordAll: false, callInput },
  );
  return "result" in opened ? opened.result : opened;
}

async function invokeTool(tool: AgentTool, toolUse: ToolUseBlock, call: OpenCall, o: BatchOptions): Promise<ToolResultBlock> {
  const context: ToolContext = {
    agent: o.agent,
    toolUse,
    invocationState: o.invocationState,
    signal: o.signal,
    idempotencyKey: call.key,
    interrupt: (request) => o.agent.interruptState.raise(toolInterruptId(toolUse.toolUseId, request.name), request),
  };
  // A call that starts after the run was cancelled (a slow hook, a sibling that aborted) never runs.
  if (o.signal.aborted) {
    await releaseCall(call);
    throw o.signal.reason;
  }
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
  const recorded = settleWhenDone(call, toolUse.toolUseId, run, toBlock);
  let output: ToolOutput;
  try {
    output = await raceAbort(run, o.signal);
  } catch (error) {
    // Cut off by an abort, the tool may still be running: its claim settles when it ends, not now.
    if (!o.signal.aborted) await recorded;
    throw error;
  }
  // Settled before AfterToolCall hooks run: a hook that throws then cannot make a retry run it again.
  await recorded;
  return toBlock(output);
}

function unknownToolMessage(name: string, agent: Agent): string {
  const names = agent.toolNames();
  return `Unknown tool "${name}". Available tools: ${names.length ? names.join(", ") : "none"}.`;
}
