/**
 * MaxToolCallsGuard: caps the tool calls of one invocation.
 *
 * @module
 */
import { UserError } from "../errors.js";
import type { Agent } from "../agent/agent.js";
import { AfterModelCallEvent, BeforeToolCallEvent, type InvocationState } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";

/** Options of {@link MaxToolCallsGuard}. */
export interface MaxToolCallsGuardOptions {
  /** Tool calls allowed per invocation (a non-negative integer). Default `25`. */
  maxCalls?: number;
}

/** What the guard remembers for one agent in one invocation. */
interface Budget {
  count: number;
  /** Model responses seen so far: each one opens a new tool batch. */
  batch: number;
  /** The batch in which the model was first told to stop, or -1. */
  warnedInBatch: number;
  /** Decision per toolUseId, so a re-fired BeforeToolCall gets the same answer and is not counted twice. */
  decisions: Map<string, { cancel: string | false; stopLoop: boolean }>;
}

/**
 * Stops an agent after a maximum number of tool calls per invocation.
 *
 * - Calls 1..`maxCalls` run. Every call past the limit is cancelled: in the
 *   batch where the limit is first crossed, the model reads that it must stop
 *   using tools and write its final answer (graceful shutdown); if a later
 *   response asks for a tool anyway, that call is cancelled and the loop ends at
 *   once (`stopReason: "stopped"`, transcript consistent).
 * - The counter lives in the invocation's `invocationState` (under a key private
 *   to this guard instance, per agent), so runs sharing the hook never share a
 *   budget, and every `agent.invoke()` starts from zero.
 * - Each `toolUseId` counts once per invocation: a BeforeToolCallEvent re-fired
 *   for the same id gets the same decision and is not counted again. Concurrent
 *   calls of one batch are counted exactly (the callback never awaits), so with
 *   `maxCalls: 2` and three parallel calls the third is cancelled.
 * - Resuming a paused run is a new invocation with a fresh budget: the calls the
 *   resume re-runs are counted in it (they had not run before the pause). A host
 *   that passes the *same* `invocationState` object to the resume keeps the old
 *   budget, and the re-fired calls are recognised by id and not counted twice.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools, hooks: [new MaxToolCallsGuard({ maxCalls: 10 })] });
 * ```
 */
export class MaxToolCallsGuard implements HookProvider {
  /** Tool calls allowed per invocation. */
  readonly maxCalls: number;
  // One key per instance: two guards on one agent (or one guard on agents that
  // share an invocationState) never read each other's counters.
  readonly #key = Symbol("kaboo.MaxToolCallsGuard");

  /**
   * @param options - `{ maxCalls = 25 }`. A bare number is rejected: pass `{ maxCalls: n }`.
   * @throws UserError when `options` is not an object or `maxCalls` is not a non-negative integer.
   */
  constructor(options: MaxToolCallsGuardOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new UserError(
        `MaxToolCallsGuard: options must be an object such as { maxCalls: 10 }, got ${typeof options}.`,
      );
    }
    const maxCalls = options.maxCalls ?? 25;
    if (typeof maxCalls !== "number" || Number.isNaN(maxCalls)) {
      throw new UserError(`MaxToolCallsGuard: maxCalls must be a number, got ${typeof maxCalls}.`);
    }
    if (!Number.isInteger(maxCalls) || maxCalls < 0) {
      throw new UserError(`MaxToolCallsGuard: maxCalls must be a non-negative integer, got ${maxCalls}.`);
    }
    this.maxCalls = maxCalls;
  }

  /** Registers the AfterModelCall (batch counter) and BeforeToolCall (limit) callbacks. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(AfterModelCallEvent, (event) => {
      if (event.stopResponse) this.#budget(event.invocationState, event.agent).batch++;
    });
    registry.addCallback(BeforeToolCallEvent, (event) => this.#onBeforeTool(event));
  }

  #onBeforeTool(event: BeforeToolCallEvent): void {
    const budget = this.#budget(event.invocationState, event.agent);
    const id = event.toolUse.toolUseId;
    let decision = budget.decisions.get(id);
    if (!decision) {
      budget.count++;
      if (budget.count <= this.maxCalls) decision = { cancel: false, stopLoop: false };
      else if (budget.warnedInBatch < 0 || budget.warnedInBatch === budget.batch) {
        budget.warnedInBatch = budget.batch;
        decision = {
          cancel:
            `Tool call limit reached: this run allows ${this.maxCalls} tool call(s) and this call was not run. ` +
            "Do not call any more tools. Write your final answer now, using what you already have.",
          stopLoop: false,
        };
      } else {
        decision = {
          cancel: `Tool call limit exceeded (${this.maxCalls}) after the model was told to stop; the run was stopped.`,
          stopLoop: true,
        };
      }
      budget.decisions.set(id, decision);
    }
    if (decision.cancel !== false) event.cancel = decision.cancel;
    if (decision.stopLoop) event.stopLoop = true;
  }

  #budget(state: InvocationState, agent: Agent): Budget {
    const slot = state as Record<PropertyKey, unknown>;
    let perAgent = slot[this.#key] as WeakMap<Agent, Budget> | undefined;
    if (!perAgent) {
      perAgent = new WeakMap();
      // Non-enumerable: invocationState may be logged or serialised by hosts.
      Object.defineProperty(slot, this.#key, { value: perAgent, enumerable: false, configurable: true });
    }
    let budget = perAgent.get(agent);
    if (!budget) {
      budget = { count: 0, batch: 0, warnedInBatch: -1, decisions: new Map() };
      perAgent.set(agent, budget);
    }
    return budget;
  }
}
