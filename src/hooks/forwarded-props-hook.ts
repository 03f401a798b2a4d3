/**
 * ForwardedPropsHook: copies the run's forwarded props into agent state.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { formatIssues } from "../agent/tools/issues.js";
import { looseObject, recordOf } from "../agent/shared/lean-schemas.js";
import { describe, UserError } from "../errors.js";
import type { Agent } from "../agent/agent.js";
import { AfterInvocationEvent, BeforeInvocationEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { jsonValueSchema } from "../agent/interrupts/interrupt.js";
import { runContext } from "../agent/run-context.js";
import type { JsonObject } from "../agent/messages/messages.js";
import { defaultLogger, type Logger } from "../logger.js";

/** Options of {@link ForwardedPropsHook}. */
export interface ForwardedPropsHookOptions {
  /**
   * Apply `forwardedProps.agent_config` (`system_prompt`, `model_id`) to the agent for
   * each invocation. Default `false`.
   * @deprecated A run should submit its whole config instead; this will be removed.
   */
  applyAgentConfig?: boolean;
  /** Agent-state key the props are stored under. Default `"forwarded_props"` (the Python name). */
  stateKey?: string;
  /** Receives skips of malformed props and the deprecation warning. Default {@link defaultLogger}. */
  logger?: Logger;
}

const propsSchema = recordOf(jsonValueSchema);
const agentConfigSchema = looseObject({ system_prompt: z.optional(z.string()), model_id: z.optional(z.string()) });

// Once per process, like Python's DeprecationWarning: a module flag, not per-run data.
let deprecationWarned = false;

const ORIGINAL = Symbol("kaboo.ForwardedPropsHook.original");
type Original = { agent: Agent; systemPrompt: string | undefined; modelId: string | undefined };

/**
 * Copies the run's forwarded props (`invocationState.forwardedProps`, see `runContext`) into
 * `agent.state[stateKey]` before each invocation.
 *
 * **Replaced per run.** `agent.state[stateKey]` always holds *this* run's props, as the spec's
 * state key says: a run's props replace the previous run's, and a run that sends none — or sends
 * something that is not a JSON object (logged) — removes the key, so a later run never reads an
 * earlier run's props (a plan, a grant list) as its own. Other state keys are never touched.
 * With `applyAgentConfig`, `agent_config.system_prompt`
 * and `agent_config.model_id` (strings) override `agent.systemPrompt` and
 * `agent.model.modelId` for that invocation only: the previous values come back
 * when it ends, so one run's override never leaks into the next run of a shared
 * agent. Turning `applyAgentConfig` on warns once per process that it is deprecated.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, hooks: [new ForwardedPropsHook()] });
 * await agent.invoke("hi", { invocationState: { forwardedProps: { plan: "pro" } } });
 * agent.state.get("forwarded_props"); // { plan: "pro" }
 * ```
 */
export class ForwardedPropsHook implements HookProvider {
  readonly #applyAgentConfig: boolean;
  readonly #stateKey: string;
  readonly #logger: Logger;

  /** @param options - `{ applyAgentConfig = false, stateKey = "forwarded_props", logger = defaultLogger }`. */
  constructor(options: ForwardedPropsHookOptions = {}) {
    this.#applyAgentConfig = options.applyAgentConfig ?? false;
    this.#stateKey = options.stateKey ?? "forwarded_props";
    this.#logger = options.logger ?? defaultLogger;
    if (typeof this.#stateKey !== "string" || this.#stateKey === "")
      throw new UserError("ForwardedPropsHook: stateKey must be a non-empty string.");
    if (this.#applyAgentConfig && !deprecationWarned) {
      deprecationWarned = true;
      this.#logger.warn(
        "ForwardedPropsHook: applyAgentConfig (forwardedProps.agent_config) is deprecated and will be removed. Submit the run's config instead.",
      );
    }
  }

  /** Registers the BeforeInvocation copy and, with `applyAgentConfig`, the AfterInvocation restore. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeInvocationEvent, (event) => {
      const raw = runContext.forwardedProps.raw(event.invocationState);
      if (raw === undefined) {
        event.agent.state.delete(this.#stateKey);
        return;
      }
      const parsed = propsSchema.safeParse(raw);
      if (!parsed.success) {
        event.agent.state.delete(this.#stateKey);
        this.#logger.warn("ForwardedPropsHook: forwarded props are not a JSON object; skipped.", {
          agent: event.agent.name,
          error: formatIssues(parsed.error.issues),
        });
        return;
      }
      const props = parsed.data as JsonObject;
      try {
        event.agent.state.set(this.#stateKey, props);
      } catch (error) {
        event.agent.state.delete(this.#stateKey);
        this.#logger.warn("ForwardedPropsHook: forwarded props could not be stored; skipped.", {
          error: describe(error),
        });
        return;
      }
      if (this.#applyAgentConfig) this.#apply(event.agent, props.agent_config, event.invocationState);
    });
    if (!this.#applyAgentConfig) return;
    registry.addCallback(AfterInvocationEvent, (event) => {
      const original = (event.invocationState as Record<PropertyKey, unknown>)[ORIGINAL] as Original | undefined;
      if (!original || original.agent !== event.agent) return;
      event.agent.systemPrompt = original.systemPrompt;
      if (original.modelId !== undefined) event.agent.model.modelId = original.modelId;
    });
  }

  #apply(agent: Agent, raw: unknown, state: Record<PropertyKey, unknown>): void {
    if (raw === undefined) return;
    const parsed = agentConfigSchema.safeParse(raw);
    if (!parsed.success) {
      this.#logger.warn("ForwardedPropsHook: agent_config is malformed; not applied.", {
        error: formatIssues(parsed.error.issues),
      });
      return;
    }
    const { system_prompt, model_id } = parsed.data;
    if (system_prompt === undefined && model_id === undefined) return;
    if (!state[ORIGINAL]) {
      const original: Original = { agent, systemPrompt: agent.systemPrompt, modelId: agent.model.modelId };
      Object.defineProperty(state, ORIGINAL, { value: original, enumerable: false, configurable: true });
    }
    if (system_prompt !== undefined) agent.systemPrompt = system_prompt;
    if (model_id !== undefined) agent.model.modelId = model_id;
  }
}
