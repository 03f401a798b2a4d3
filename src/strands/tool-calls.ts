/**
 * Strands' tool-call events, through our hooks and the execution ledger:
 *
 * 1. `BeforeToolCallEvent` (order 0): our `BeforeToolCallEvent` goes through our hooks (the gate, the
 *    guards, the sanitizer); what they decide (`cancel`, `toolUse`, `selectedTool`) is written back, and
 *    a question they ask pauses the Strands agent with Strands' own interrupt.
 * 2. `BeforeToolCallEvent` (order {@link CLAIM_ORDER}, after every other hook): the call is claimed in
 *    the ledger. Settled before → it does not run and the model reads the recorded result; a lost claim
 *    (`unknown`) → the outcome question, as on our runner.
 * 3. `AfterToolCallEvent` (order {@link SETTLE_ORDER}, first): the tool's result is settled under the claim.
 * 4. `AfterToolCallEvent` (order 0): our `AfterToolCallEvent` goes through our hooks; a rewritten result
 *    or `retry` is written back.
 * 5. `AfterInvocationEvent`: the claim of a call whose tool paused the run with its own question is released.
 *
 * @module
 */
import { AfterToolCallEvent, BeforeToolCallEvent, type InvocationState } from "../agent/events.js";
import type { HookRegistry } from "../agent/hooks.js";
import { InterruptSignal } from "../agent/interrupts/interrupt.js";
import { type OpenCall, openCall, releaseCall, settleCall } from "../agent/ledger/call-ledger.js";
import type { ToolResultBlock } from "../agent/messages/messages.js";
import { toResultBlock } from "../agent/tools/result-block.js";
import { CallInProgressError, UserError } from "../errors.js";
import type { Agent } from "../agent/agent.js";
import { ourTool, strandsName, strandsTool } from "./agent-view.js";
import { ourResult, ourToolUse, strandsResult } from "./convert.js";
import type {
  StrandsAfterToolCallEvent,
  StrandsAgent,
  StrandsBeforeToolCallEvent,
  StrandsHookHost,
  StrandsSdk,
} from "./sdk.js";

/** Order of the ledger's claim: after the SDK's last hooks (`HookOrder.SDK_LAST` is 100), so a call a hook cancels is never claimed. */
export const CLAIM_ORDER = 1000;
/** Order of the settle: before any hook rewrites the tool's result (the ledger keeps what the tool returned). */
export const SETTLE_ORDER = -1000;

/** What the bridge needs from the adapter. */
export interface ToolCallBridge {
  sdk: StrandsSdk;
  registry: HookRegistry;
  view(agent: StrandsAgent): Agent;
  /** Whether calls go through the ledger. */
  ledger: boolean;
  leaseMs: number | undefined;
}

/** One call between its Before and After events. */
interface CallRecord {
  /** The arguments as the model made the call (the ledger's key), before hooks and edits. */
  modelInput: unknown;
  call?: OpenCall | undefined;
  /** Whether the call's result was settled under its claim (a retry settles again under the same one). */
  settled?: boolean;
  replay?: ToolResultBlock;
}

const calls = new WeakMap<InvocationState, Map<string, CallRecord>>();

function recordOf(state: InvocationState, toolUseId: string): CallRecord | undefined {
  return calls.get(state)?.get(toolUseId);
}

/**
 * Our `stopLoop` on Strands, which has no such field: `Agent.cancel()`, so the run ends at its next safe
 * point (`stopReason: "cancelled"`; calls of the batch not yet run get Strands' cancel result).
 */
function stop(agent: StrandsAgent): void {
  if (typeof agent.cancel !== "function")
    throw new UserError("A hook asked to stop the run, and this Strands agent has no cancel().");
  agent.cancel();
}

/** Whether a question about this call (ours or another hook's) has no answer yet. */
function waiting(event: StrandsBeforeToolCallEvent): boolean {
  const prefix = `hook:beforeToolCall:${event.toolUse.toolUseId}:`;
  const interrupts = event.agent._interruptState?.interrupts ?? {};
  for (const id in interrupts) if (id.startsWith(prefix) && interrupts[id]?.response === undefined) return true;
  return false;
}

/**
 * Runs `step`; a question it asks (our `InterruptSignal`) pauses the Strands agent through the event's
 * own `interrupt()`, which records it in Strands' interrupt state and throws Strands' interrupt.
 */
async function asking<T>(event: StrandsBeforeToolCallEvent, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof InterruptSignal) {
      const { id, reason } = error.interrupt;
      event.interrupt(reason === undefined ? { name: strandsName(id) } : { name: strandsName(id), reason });
    }
    throw error;
  }
}

/**
 * Registers the callbacks on a Strands agent.
 * @param host - The Strands agent (`initAgent`'s argument).
 * @param b - The adapter's parts.
 */
export function bridgeToolCalls(host: StrandsHookHost, b: ToolCallBridge): void {
  host.addHook(b.sdk.BeforeToolCallEvent, throughOurHooksBefore(b));
  if (b.ledger) host.addHook(b.sdk.BeforeToolCallEvent, claimCall(b), { order: CLAIM_ORDER });
  host.addHook(b.sdk.AfterToolCallEvent, settleResult(b), { order: SETTLE_ORDER });
  // A tool that asks a question itself (Strands' `ToolContext.interrupt`) ends without an AfterToolCallEvent:
  // its claim is released, as our runner releases it, so the resumed run claims and runs it again.
  host.addHook(b.sdk.AfterInvocationEvent, releasePaused, { order: SETTLE_ORDER });
  host.addHook(b.sdk.AfterToolCallEvent, throughOurHooksAfter(b));
}

/** Step 1 (see the module): the call through our hooks, what they decide written back. */
function throughOurHooksBefore(b: ToolCallBridge) {
  return async (event: StrandsBeforeToolCallEvent): Promise<void> => {
    const state = event.invocationState;
    let map = calls.get(state);
    if (!map) calls.set(state, (map = new Map()));
    // A second BeforeToolCallEvent for a call in one invocation is a retry (an AfterToolCall hook asked for
    // it): the call keeps its claim, runs again and settles again under it, as on our runner.
    const prior = map.get(event.toolUse.toolUseId);
    if (prior?.call && prior.settled) prior.settled = false;
    else map.set(event.toolUse.toolUseId, { modelInput: event.toolUse.input });
    if (!b.registry.has(BeforeToolCallEvent)) return;
    const selected = ourTool(event.selectedTool ?? event.tool);
    const ours = new BeforeToolCallEvent(b.view(event.agent), state, ourToolUse(event.toolUse), selected);
    const asked = ours.toolUse;
    await asking(event, () => b.registry.invoke(ours));
    if (ours.cancel !== false) event.cancel = ours.cancel;
    if (ours.toolUse !== asked || ours.toolUse.input !== asked.input || ours.toolUse.name !== asked.name)
      event.toolUse = { name: ours.toolUse.name, toolUseId: event.toolUse.toolUseId, input: ours.toolUse.input };
    if (ours.selectedTool !== selected) event.selectedTool = strandsTool(ours.selectedTool);
    if (ours.stopLoop) stop(event.agent);
  };
}

/** Step 2: the call claimed in the ledger, after every other hook. */
function claimCall(b: ToolCallBridge) {
  return async (event: StrandsBeforeToolCallEvent): Promise<void> => {
    const record = recordOf(event.invocationState, event.toolUse.toolUseId);
    // Strands runs every callback of an event before it pauses (it collects their interrupts): a
    // call with a question still open is not claimed, or its resume would find its own claim running.
    if (event.cancel !== false || !record || record.call || waiting(event)) return;
    const tool = ourTool(event.selectedTool ?? event.tool);
    if (!tool) return; // Strands answers an unknown tool with an error result: nothing runs.
    const toolUse = ourToolUse(event.toolUse);
    const options = {
      agent: b.view(event.agent),
      invocationState: event.invocationState,
      recordAll: false,
      leaseMs: b.leaseMs,
      callInput: record.modelInput,
    };
    try {
      const opened = await asking(event, () => openCall(tool, toolUse, toolUse.input, options));
      if ("result" in opened) {
        record.replay = opened.result;
        event.cancel = true;
      } else record.call = opened;
    } catch (error) {
      if (!(error instanceof CallInProgressError)) throw error;
      event.cancel = `The call to "${toolUse.name}" is running elsewhere now; it was not started again.`;
    }
  };
}

/** Step 3: the tool's result settled under the claim (or the recorded result replayed). */
function settleResult(b: ToolCallBridge) {
  return async (event: StrandsAfterToolCallEvent): Promise<void> => {
    const record = recordOf(event.invocationState, event.toolUse.toolUseId);
    if (!record) return;
    if (record.replay) {
      event.result = strandsResult(b.sdk, record.replay);
      return;
    }
    const call = record.call;
    if (!call) return;
    record.settled = true;
    const id = event.toolUse.toolUseId;
    await settleCall(call, id, (output) => toResultBlock(id, output), ourResult(event.result));
  };
}

/** Step 5: the claim of a call whose tool paused the run with its own question, released. */
async function releasePaused(event: { invocationState: InvocationState; agent: StrandsAgent }): Promise<void> {
  const held = calls.get(event.invocationState);
  if (!held) return;
  const interrupts = event.agent._interruptState?.interrupts ?? {};
  const open = Object.values(interrupts).filter((i) => i.response === undefined);
  for (const [toolUseId, record] of held) {
    const call = record.call;
    if (!call || record.settled || !open.some((i) => i.id.startsWith(`tool:${toolUseId}:`))) continue;
    record.call = undefined;
    await releaseCall(call);
  }
}

/** Step 4: the result through our hooks; a rewritten result or `retry` written back. */
function throughOurHooksAfter(b: ToolCallBridge) {
  return async (event: StrandsAfterToolCallEvent): Promise<void> => {
    if (!b.registry.has(AfterToolCallEvent)) return;
    const result = ourResult(event.result);
    const ours = new AfterToolCallEvent({
      agent: b.view(event.agent),
      invocationState: event.invocationState,
      toolUse: ourToolUse(event.toolUse),
      selectedTool: ourTool(event.tool),
      result,
      error: event.error,
    });
    await b.registry.invoke(ours);
    if (ours.result !== result) event.result = strandsResult(b.sdk, ours.result);
    if (ours.retry) event.retry = true;
    if (ours.stopLoop) stop(event.agent);
  };
}
