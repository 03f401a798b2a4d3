import { describe } from "../../errors.js";
import { ToolAbandonedError } from "./call-deadline.js";
import type { Agent } from "../agent.js";
import { AfterToolCallEvent, BeforeToolCallEvent, type InvocationState } from "../events.js";
import { InterruptSignal } from "../interrupts/interrupt.js";
import type { ToolResultBlock, ToolUseBlock } from "../messages/messages.js";
import { recordTool, type AgentMetrics } from "../metrics.js";
import type { AgentStreamEvent } from "../stream-events.js";
import { errorResult, type AgentTool } from "./tools.js";
import { openCall, type OpenCall } from "../ledger/call-ledger.js";
import { linkedAbort } from "../shared/abort.js";
import { invokeTool } from "./invoke-tool.js";
import { cloneCall } from "../clone.js";

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

/** What hooks of the batch said that outlives one call: a hook set `stopLoop`. */
interface BatchFlags {
  stopLoop: boolean;
}

/**
 * Runs the calls of one model response.
 * @param toolUses - Calls still to run (those already answered on a resume are excluded by the caller).
 */
export async function runToolBatch(toolUses: readonly ToolUseBlock[], o: BatchOptions): Promise<BatchOutcome> {
  const flags: BatchFlags = { stopLoop: false };
  // One call has no sibling to cancel when it fails: it needs no signal of the batch's own (the run's
  // signal aborts as the failed run ends).
  const outcomes =
    o.executor === "sequential" || toolUses.length < 2
      ? await runInOrder(toolUses, o, flags)
      : await runTogether(toolUses, o, flags);
  return { outcomes, stopLoop: flags.stopLoop };
}

/** One call after the other; a failure keeps the outcomes before it. */
async function runInOrder(
  toolUses: readonly ToolUseBlock[],
  o: BatchOptions,
  flags: BatchFlags,
): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  try {
    for (const t of toolUses) outcomes.push(await runCall(t, o, flags));
  } catch (error) {
    throw new BatchFailure(error, outcomes);
  }
  return outcomes;
}

/**
 * All calls at once, under a signal of the batch's own: when one call fails the run (a hook threw),
 * its siblings are cancelled rather than awaited, since a hanging tool must not keep a failed run open.
 */
async function runTogether(
  toolUses: readonly ToolUseBlock[],
  o: BatchOptions,
  flags: BatchFlags,
): Promise<CallOutcome[]> {
  const batch = linkedAbort(o.signal);
  const opts = { ...o, signal: batch.signal };
  const settled = await Promise.allSettled(
    toolUses.map((t) =>
      runCall(t, opts, flags).catch((error: unknown) => {
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
  return settled.map((s) => (s as PromiseFulfilledResult<CallOutcome>).value);
}

/** A call past its BeforeToolCall hooks: as it will run (or not), validated and claimed. */
interface PreparedCall {
  toolUse: ToolUseBlock;
  selected: AgentTool | undefined;
  /** The claimed call, or the result it has instead (invalid input, a recorded result, …). */
  call: OpenCall | ToolResultBlock | undefined;
  /** Set when a hook cancelled the call: what the model reads. */
  cancelMessage: string | undefined;
}

/** One call: BeforeToolCall, validation and the ledger claim, then attempts until a result stands. */
async function runCall(original: ToolUseBlock, o: BatchOptions, flags: BatchFlags): Promise<CallOutcome> {
  const { agent, invocationState } = o;
  // A deep copy: a hook that edits the input in place and then interrupts must not alter the paused call.
  const before = new BeforeToolCallEvent(agent, invocationState, cloneCall(original), agent.tool(original.name));
  let hooked = hooksOn(agent, before);
  if (hooked instanceof Promise) hooked = await hooked;
  if (hooked === INTERRUPTED) return { kind: "interrupted", toolUse: original };
  if (before.stopLoop) flags.stopLoop = true;
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
  o.emit({ type: "toolStart", toolUse });
  let call: OpenCall | ToolResultBlock | undefined;
  if (cancelMessage === undefined && selected) {
    try {
      call = await prepareCall(selected, toolUse, original.input, o);
    } catch (error) {
      if (error instanceof InterruptSignal) return { kind: "interrupted", toolUse };
      throw error;
    }
  }
  return attempts({ toolUse, selected, call, cancelMessage }, o, flags);
}

/** Runs the call, with AfterToolCall hooks after each attempt, until no hook asks to retry. */
async function attempts(c: PreparedCall, o: BatchOptions, flags: BatchFlags): Promise<CallOutcome> {
  const { agent, invocationState } = o;
  const { toolUse, selected, cancelMessage } = c;
  let cutOff = false;
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    let ran = attemptOnce(c, o);
    if (ran instanceof Promise) ran = await ran;
    if (ran === INTERRUPTED) return { kind: "interrupted", toolUse };
    if (ran.threw) cutOff = ran.cutOff;
    const { result, error } = ran;
    recordTool(o.metrics, toolUse.name, result.status === "success", performance.now() - started);
    const after = new AfterToolCallEvent({
      agent,
      invocationState,
      toolUse,
      selectedTool: selected,
      result,
      error,
      cancelMessage,
    });
    let hooked = hooksOn(agent, after);
    if (hooked instanceof Promise) hooked = await hooked;
    if (hooked === INTERRUPTED) return { kind: "interrupted", toolUse };
    if (after.stopLoop) flags.stopLoop = true;
    if (after.retry && attempt <= o.maxToolRetries && cancelMessage === undefined && !o.signal.aborted) continue;
    const final = { ...after.result, toolUseId: toolUse.toolUseId };
    o.emit({ type: "toolResult", toolUse, result: final });
    return cutOff ? { kind: "done", toolUse, result: final, cutOff } : { kind: "done", toolUse, result: final };
  }
}

/** One attempt's result: the tool's, or the note that stands in for it (cancelled, unknown, failed). */
function attemptOnce(c: PreparedCall, o: BatchOptions): Ran | typeof INTERRUPTED | Promise<Ran | typeof INTERRUPTED> {
  const { toolUse, selected, call, cancelMessage } = c;
  const ran = (result: ToolResultBlock, error?: unknown, threw = false, cutOff = false): Ran => ({
    result,
    error,
    threw,
    cutOff,
  });
  if (cancelMessage !== undefined) return ran(errorResult(toolUse.toolUseId, cancelMessage));
  if (!selected || !call) return ran(errorResult(toolUse.toolUseId, unknownToolMessage(toolUse.name, o.agent)));
  if ("type" in call) return ran(call);
  return invokeTool(selected, toolUse, call, o).then(ran, (e: unknown) => {
    if (e instanceof InterruptSignal) return INTERRUPTED;
    const cutOff = o.signal.aborted;
    const abandoned = e instanceof ToolAbandonedError;
    const text = cutOff ? CANCELLED_BY_ABORT : abandoned ? abandonedNote(e) : `Error: ${describe(e)}`;
    const result = errorResult(toolUse.toolUseId, text);
    // A call let go still running is never started again, whatever a hook asks: a retry reads this result.
    if (abandoned) c.call = result;
    return ran(result, e, true, cutOff);
  });
}

/** What the model reads of a call that was let go still running. */
function abandonedNote(e: ToolAbandonedError): string {
  const after = e.why === "timeout" ? "its timeout" : "the run was stopped";
  return `The call to "${e.tool}" did not end after ${after}, and was abandoned: whether it took effect is unknown. Do not assume that it did or that it did not.`;
}

type Ran = { result: ToolResultBlock; error: unknown; threw: boolean; cutOff: boolean };

const INTERRUPTED = Symbol("interrupted");

/**
 * Runs the event's callbacks: `undefined`, or {@link INTERRUPTED} when one raised an interrupt; a promise of
 * either only when a callback returned one (see `HookRegistry.dispatch`).
 */
function hooksOn(agent: Agent, event: BeforeToolCallEvent | AfterToolCallEvent): unknown {
  try {
    const pending = agent.hooks.dispatch(event);
    return pending === event ? undefined : (pending as Promise<unknown>).then(undefined, interrupted);
  } catch (error) {
    return interrupted(error);
  }
}

const interrupted = (error: unknown) => {
  if (error instanceof InterruptSignal) return INTERRUPTED;
  throw error;
};

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
    // Awaited only when the schema answers with a promise (zod answers synchronously).
    let checked = tool.validate(input);
    if (checked instanceof Promise) checked = await checked;
    if (!checked.ok)
      return errorResult(toolUse.toolUseId, `Invalid input for tool "${toolUse.name}":\n${checked.error}`);
    input = checked.value;
  }
  // Spelled out: a spread followed by more keys took V8 a runtime call per tool call (a microsecond or so).
  const pending = openCall(tool, toolUse, input, {
    agent: o.agent,
    invocationState: o.invocationState,
    recordAll: o.ledger?.recordAll ?? false,
    leaseMs: o.ledger?.leaseMs,
    callInput,
  });
  const opened = pending instanceof Promise ? await pending : pending;
  return "result" in opened ? opened.result : opened;
}

function unknownToolMessage(name: string, agent: Agent): string {
  const names = agent.toolNames();
  return `Unknown tool "${name}". Available tools: ${names.length ? names.join(", ") : "none"}.`;
}
