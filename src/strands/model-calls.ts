/**
 * Strands' model-call events through our hooks: `BeforeModelCallEvent` (its `cancel` written back) and
 * `AfterModelCallEvent` (tool names a hook rewrites in the response, `retry`), so `MaxToolCallsGuard`
 * counts the model's batches and `ToolNameSanitizer` repairs names before Strands looks the tools up.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import { AfterModelCallEvent, BeforeModelCallEvent } from "../agent/events.js";
import type { HookRegistry } from "../agent/hooks.js";
import type { ModelStopReason } from "../agent/model.js";
import { ourMessage } from "./convert.js";
import type { StrandsAgent, StrandsHookHost, StrandsSdk } from "./sdk.js";

/** What the bridge needs from the adapter. */
export interface ModelCallBridge {
  sdk: StrandsSdk;
  registry: HookRegistry;
  view(agent: StrandsAgent): Agent;
}

/** Strands' stop reasons are ours (both camelCase); one we do not know reads as the end of the turn. */
const STOP_REASONS: ReadonlySet<string> = new Set<ModelStopReason>([
  "endTurn",
  "toolUse",
  "maxTokens",
  "stopSequence",
  "contentFiltered",
]);

/**
 * Registers the model-call callbacks on a Strands agent.
 * @param host - The Strands agent.
 * @param b - The adapter's parts.
 */
export function bridgeModelCalls(host: StrandsHookHost, b: ModelCallBridge): void {
  host.addHook(b.sdk.BeforeModelCallEvent, async (event) => {
    if (!b.registry.has(BeforeModelCallEvent)) return;
    const ours = new BeforeModelCallEvent(b.view(event.agent), event.invocationState, event.projectedInputTokens ?? 0);
    await b.registry.invoke(ours);
  });
  host.addHook(b.sdk.AfterModelCallEvent, async (event) => {
    if (!b.registry.has(AfterModelCallEvent)) return;
    const stop = event.stopData;
    const mapped = stop && ourMessage(stop.message);
    const response = stop &&
      mapped && {
        message: mapped.message,
        stopReason: (STOP_REASONS.has(stop.stopReason) ? stop.stopReason : "endTurn") as ModelStopReason,
      };
    const ours = new AfterModelCallEvent(
      b.view(event.agent),
      event.invocationState,
      response,
      event.error,
      event.attemptCount,
    );
    await b.registry.invoke(ours);
    // ToolNameSanitizer renames in place; Strands reads the names from its own blocks.
    for (const [block, strands] of mapped?.blocks ?? []) {
      if (block.type === "toolUse" && block.name !== strands.name) strands.name = block.name;
    }
    if (ours.retry) event.retry = true;
  });
}
