/**
 * `kabooPlugin`: our hooks on a Strands `Agent`, as one Strands plugin.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import type { AuditLog } from "../agent/audit/audit.js";
import { type HookProvider, HookRegistry } from "../agent/hooks.js";
import type { ExecutionLedger } from "../agent/ledger/ledger.js";
import { MemoryExecutionLedger } from "../agent/ledger/memory-ledger.js";
import { UserError } from "../errors.js";
import { agentView } from "./agent-view.js";
import { bridgeInvocations } from "./invocations.js";
import { bridgeModelCalls } from "./model-calls.js";
import type { StrandsAgent, StrandsHookHost, StrandsSdk } from "./sdk.js";
import { bridgeToolCalls } from "./tool-calls.js";

/** Options of {@link kabooPlugin}. */
export interface KabooPluginOptions {
  /** Our hooks (`InterruptHook`, `MaxToolCallsGuard`, `StopGuard`, …), in registration order. Default none. */
  hooks?: readonly HookProvider[];
  /**
   * The execution ledger every call is claimed in before it runs and settled in after (exactly once
   * per call); `false` for none. Default: a `MemoryExecutionLedger` of this plugin (pass a shared store,
   * IndexedDB, PostgreSQL, Durable Object, Deno KV, for calls to survive the process).
   */
  ledger?: ExecutionLedger | false;
  /** The audit trail: the gate records what it asked and what was decided, the ledger what ran. Default none. */
  audit?: AuditLog;
  /** A claim's lease, ms (after it, a claim without a result is an unknown outcome). Default the ledger's (15 min). */
  leaseMs?: number;
  /** Clock, epoch ms (the invocation's duration in our `AfterInvocationEvent`). Default `Date.now`. */
  now?: () => number;
}

/** A Strands plugin (`AgentConfig.plugins`), as `@strands-agents/sdk`'s `Plugin` interface has it. */
export interface KabooStrandsPlugin {
  readonly name: string;
  initAgent(agent: StrandsHookHost): void;
}

/**
 * Our hooks on a Strands agent: each Strands event is mapped to ours and goes through the same hook
 * code as on our runner; what the hooks decide is written back. `InterruptHook`'s questions pause the
 * Strands agent with Strands' own interrupts (`result.stopReason === "interrupt"`, `result.interrupts`),
 * and the answers resume it (`agent.invoke([{ interruptResponse: { interruptId, response } }])`). Every
 * call goes through the execution ledger, so an approved call runs once, whatever is resumed twice.
 *
 * @param sdk - The `@strands-agents/sdk` module (`import * as strands from "@strands-agents/sdk"`).
 * @param options - See {@link KabooPluginOptions}.
 * @returns A plugin for `new Agent({ plugins: [...] })`.
 * @throws UserError when `sdk` lacks the event classes (not the Strands SDK, or a version before 1.0).
 * @example
 * ```ts
 * import * as strands from "@strands-agents/sdk";
 * import { InterruptHook } from "kaboo-workflows/hooks";
 * import { kabooPlugin } from "kaboo-workflows/strands";
 *
 * const agent = new strands.Agent({
 *   model,
 *   tools: [transfer],
 *   plugins: [kabooPlugin(strands, { hooks: [new InterruptHook(["transfer"])] })],
 * });
 * const paused = await agent.invoke("pay bob 5");
 * // paused.stopReason === "interrupt"; show paused.interrupts[0].reason, then:
 * await agent.invoke([{ interruptResponse: { interruptId: paused.interrupts[0].id, response: { approved: true } } }]);
 * ```
 */
export function kabooPlugin(sdk: StrandsSdk, options: KabooPluginOptions = {}): KabooStrandsPlugin {
  for (const name of ["BeforeToolCallEvent", "AfterToolCallEvent", "AgentResultEvent", "ToolResultBlock"] as const)
    if (typeof sdk?.[name] !== "function")
      throw new UserError(`kabooPlugin needs the @strands-agents/sdk module (its ${name} was not found).`);
  const registry = new HookRegistry();
  for (const hook of options.hooks ?? []) registry.addHook(hook);
  const settings = {
    ledger: options.ledger === false || options.ledger === undefined ? new MemoryExecutionLedger() : options.ledger,
    audit: options.audit,
  };
  const views = new WeakMap<StrandsAgent, Agent>();
  const view = (agent: StrandsAgent) => {
    let found = views.get(agent);
    if (!found) views.set(agent, (found = agentView(agent, settings)));
    return found;
  };
  return {
    name: "kaboo-workflows",
    initAgent(agent: StrandsHookHost) {
      bridgeToolCalls(agent, { sdk, registry, view, ledger: options.ledger !== false, leaseMs: options.leaseMs });
      bridgeModelCalls(agent, { sdk, registry, view });
      bridgeInvocations(agent, { sdk, registry, view, now: options.now ?? Date.now });
    },
  };
}
