/**
 * StateEffectsHook: after each successful tool call, the run's state effects
 * turn the call into changes of the shared state, emitted as JSON Patch.
 *
 * @module
 */
import jsonpatch, { type Operation } from "fast-json-patch";
import * as z from "zod/v4/mini";
import { formatIssues } from "../agent/tools/issues.js";
import { looseObject, recordOf, sizedString } from "../agent/shared/lean-schemas.js";
import { AfterToolCallEvent, type InvocationState } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import { jsonValueSchema } from "../agent/interrupts/interrupt.js";
import type { JsonObject, JsonValue, ToolResultBlock } from "../agent/messages/messages.js";
import { describe } from "../errors.js";
import { compileGlob, globProblem } from "./glob.js";
import { defaultLogger, type Logger } from "../logger.js";
import { runContext } from "../agent/run-context.js";
import { isObject } from "../agent/shared/guards.js";

export type { Operation } from "fast-json-patch";

/** `invocationState` key of the run's state effects: a {@link StateEffect} array or a {@link StateEffectsConfig}. */
export const STATE_EFFECTS_KEY = "kabooStateEffects";
/** `invocationState` key of the run's emitted {@link StateDelta}s (read with {@link stateDeltas}). */
export const STATE_DELTAS_KEY = "kabooStateDeltas";

/** What a state effect's mapper receives about the call that succeeded. Everything in it is deep-frozen. */
export interface StateEffectCall {
  /** The tool's name. */
  readonly tool: string;
  /** The call's arguments. */
  readonly input: unknown;
  /**
   * The tool's result: `structuredContent` when the tool gave one; otherwise each
   * part's value (text parsed as JSON when it is JSON, else the text; a JSON
   * part's value; media left out) — the value itself for one part, an array for several, `null` for none.
   */
  readonly result: unknown;
  /** The agent that made the call. */
  readonly agent: string;
  /** The run the call belongs to (`runContext.runId`, `""` when unset). */
  readonly runId: string;
  /** The shared state before this effect: read it, never modify it (it is frozen). */
  readonly state: Readonly<JsonObject>;
}

/**
 * A mapper's answer: JSON Patch operations (RFC 6902) applied to the state; a
 * partial object whose top-level keys replace the state's (a shallow merge —
 * use a patch to edit deeper); or `null`/`undefined` for no change.
 */
export type StateChange = Operation[] | JsonObject | null | undefined;

/** One rule: calls of tools matching `tool` (a name or a glob, see `glob.ts`) change the state through `map`. */
export interface StateEffect {
  tool: string;
  /** Synchronous, so effects of concurrent calls apply one at a time and none is lost. */
  map: (call: StateEffectCall) => StateChange;
}

/** The run's state effects with an optional listener for what they emit. */
export interface StateEffectsConfig {
  effects: StateEffect[];
  /** Called with each applied effect's delta (the AG-UI adapter sends it as `STATE_DELTA`). A listener that throws is logged. */
  onDelta?: (delta: StateDelta) => void;
}

/** The change one effect made. */
export interface StateDelta {
  tool: string;
  toolUseId: string;
  agent: string;
  /** JSON Patch operations against the state before this effect. */
  ops: Operation[];
}

const effectSchema = z.object({
  // A brace does not expand in a tool-name glob, and a class opened with \^ would match its complement
  // (see glob.ts): such an effect is malformed.
  tool: sizedString(1).check(z.refine((t) => globProblem(t) === undefined)),
  map: z.custom<StateEffect["map"]>((v) => typeof v === "function"),
});
const opSchema = looseObject({
  op: z.literal(["add", "remove", "replace", "move", "copy", "test"]),
  path: z.string(),
});
const partialSchema = recordOf(jsonValueSchema);

/**
 * The run's emitted deltas, in order (created empty on first use).
 * @param invocationState - The run's state.
 * @returns The live list the hook appends to.
 */
export function stateDeltas(invocationState: InvocationState): StateDelta[] {
  const list = invocationState[STATE_DELTAS_KEY];
  if (Array.isArray(list)) return list as StateDelta[];
  const fresh: StateDelta[] = [];
  invocationState[STATE_DELTAS_KEY] = fresh;
  return fresh;
}

/** Options of {@link StateEffectsHook}. */
export interface StateEffectsHookOptions {
  /** The agent's name, handed to mappers. Default `""`: the running agent's own `name`. */
  agentName?: string;
  /** Where bad rules, failing mappers and invalid changes are reported. Default {@link defaultLogger}. */
  logger?: Logger;
}

/**
 * Applies the run's state effects (`invocationState[STATE_EFFECTS_KEY]`) after
 * each successful tool call; failed and cancelled calls change nothing.
 *
 * Effects whose `tool` matches apply in order, each seeing the state the
 * previous one left. A mapper gets a deep-frozen copy (a mutation throws in
 * strict-mode code and is logged). A mapper that throws, returns a promise, or
 * returns an invalid patch or a non-JSON object is logged and changes nothing
 * (atomic per effect). The new state replaces
 * `invocationState[SHARED_STATE_KEY]` (a new object; the old one is never
 * modified), and each effect's ops are appended to {@link stateDeltas} and
 * passed to `onDelta`.
 *
 * @example
 * ```ts
 * const invocationState = {
 *   [SHARED_STATE_KEY]: { cart: [] },
 *   [STATE_EFFECTS_KEY]: [{ tool: "add_to_cart", map: ({ input }) => [{ op: "add", path: "/cart/-", value: input }] }],
 * };
 * await new Agent({ model, tools, hooks: [new StateEffectsHook()] }).invoke("Buy milk", { invocationState });
 * stateDeltas(invocationState); // [{ tool: "add_to_cart", ops: [...] , ... }]
 * ```
 */
export class StateEffectsHook implements HookProvider {
  readonly agentName: string;
  readonly #logger: Logger;

  /** @param options - `agentName` (default `""`: the agent's own name), `logger` (default console). */
  constructor(options: StateEffectsHookOptions = {}) {
    this.agentName = options.agentName ?? "";
    this.#logger = options.logger ?? defaultLogger;
  }

  registerHooks(registry: HookRegistry): void {
    registry.addCallback(AfterToolCallEvent, (e) => this.#apply(e));
  }

  async #apply(event: AfterToolCallEvent): Promise<void> {
    if (event.result.status !== "success" || event.error !== undefined || event.cancelMessage !== undefined) return;
    const config = this.#config(event.invocationState);
    if (config === undefined) return;
    const tool = event.toolUse.name;
    // The only await: matching. From here on the read-modify-write of the shared state is
    // synchronous, so effects of concurrent calls never interleave.
    const matches = await Promise.all(config.effects.map(async (r) => (await compileGlob(r.tool))(tool)));
    const rules = config.effects.filter((_, i) => matches[i]);
    if (rules.length === 0) return;
    const agent = this.agentName || event.agent.name;
    const runId = runContext.runId.find(event.invocationState);
    const base = {
      tool,
      input: deepFreeze(safeClone(event.toolUse.input)),
      result: deepFreeze(resultValue(event.result)),
      agent,
      runId: runId ?? "",
    };
    let state = this.#state(event.invocationState);
    const deltas: StateDelta[] = [];
    for (const rule of rules) {
      const applied = this.#run(rule, { ...base, state: deepFreeze(structuredClone(state)) });
      if (applied === undefined || applied.ops.length === 0) continue;
      state = applied.state;
      deltas.push({ tool, toolUseId: event.toolUse.toolUseId, agent, ops: applied.ops });
    }
    if (deltas.length === 0) return;
    runContext.sharedState.set(event.invocationState, state);
    const list = stateDeltas(event.invocationState);
    for (const delta of deltas) {
      list.push(delta);
      try {
        config.onDelta?.(delta);
      } catch (error) {
        this.#logger.warn("kaboo: StateEffectsHook onDelta listener failed.", { tool, error: describe(error) });
      }
    }
  }

  #run(rule: StateEffect, call: StateEffectCall): { state: JsonObject; ops: Operation[] } | undefined {
    const fail = (why: string) =>
      void this.#logger.warn(`kaboo: state effect for ${JSON.stringify(rule.tool)} skipped: ${why}`, {
        tool: call.tool,
        agent: call.agent,
      });
    let change: unknown;
    try {
      change = rule.map(call);
    } catch (error) {
      return fail(`its mapper threw: ${describe(error)}`);
    }
    if (change === null || change === undefined) return undefined;
    if (typeof (change as { then?: unknown }).then === "function")
      return fail("its mapper returned a promise; mappers are synchronous.");
    const before = call.state as JsonObject;
    if (Array.isArray(change)) {
      const ops = z.array(opSchema).safeParse(change);
      if (!ops.success) return fail(`not a JSON Patch: ${formatIssues(ops.error.issues)}`);
      const patch = structuredClone(change) as Operation[];
      const doc = structuredClone(before);
      try {
        const error = jsonpatch.validate(patch, doc);
        if (error) return fail(`invalid JSON Patch: ${error.message}`);
        const next = jsonpatch.applyPatch(doc, patch, true, true).newDocument as unknown;
        if (!isObject<JsonValue>(next) || !jsonValueSchema.safeParse(next).success)
          return fail("the patch would make the state something other than a JSON object.");
        return { state: next, ops: patch };
      } catch (error) {
        return fail(`invalid JSON Patch: ${describe(error)}`);
      }
    }
    const partial = partialSchema.safeParse(change);
    if (!isObject<JsonValue>(change) || !partial.success)
      return fail("a mapper must return JSON Patch ops, a partial JSON object, or null.");
    // One add/replace per top-level key is the exact delta of a shallow merge; a deep
    // compare() would also address nested keys, and a nested "__proto__" gives ops that
    // fast-json-patch (and so every AG-UI client) refuses to apply.
    if (Object.hasOwn(partial.data, "__proto__")) return fail('a partial object may not set "__proto__".');
    const next = { ...structuredClone(before), ...partial.data };
    const ops: Operation[] = Object.entries(partial.data).map(([key, value]) => ({
      op: Object.hasOwn(before, key) ? "replace" : "add",
      path: `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`,
      value: structuredClone(value),
    }));
    return { state: next, ops };
  }

  #config(invocationState: InvocationState): StateEffectsConfig | undefined {
    const raw = invocationState[STATE_EFFECTS_KEY];
    if (raw === undefined || raw === null) return undefined;
    const obj = raw as Partial<StateEffectsConfig>;
    const list: unknown = Array.isArray(raw) ? raw : obj.effects;
    if (!Array.isArray(list)) {
      this.#logger.warn(
        "kaboo: StateEffectsHook ignored the run's state effects: expected an array of { tool, map } or { effects, onDelta }.",
      );
      return undefined;
    }
    const effects = list.filter((r): r is StateEffect => effectSchema.safeParse(r).success);
    if (effects.length < list.length)
      this.#logger.warn(
        `kaboo: StateEffectsHook skipped ${list.length - effects.length} malformed state effect(s); each must be { tool: string (no braces, no [\\^…]), map: function }.`,
      );
    const onDelta = !Array.isArray(raw) && typeof obj.onDelta === "function" ? obj.onDelta : undefined;
    return onDelta === undefined ? { effects } : { effects, onDelta };
  }

  #state(invocationState: InvocationState): JsonObject {
    const raw = runContext.sharedState.raw(invocationState);
    if (raw === undefined || raw === null) return {};
    if (isObject<JsonValue>(raw) && jsonValueSchema.safeParse(raw).success) return raw;
    this.#logger.warn("kaboo: StateEffectsHook found a shared state that is not a JSON object; effects start from {}.");
    return {};
  }
}

function safeClone(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return JSON.parse(JSON.stringify(value ?? null)) as unknown;
  }
}

function parseText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function resultValue(result: ToolResultBlock): unknown {
  if (result.structuredContent !== undefined) return structuredClone(result.structuredContent);
  const values: JsonValue[] = [];
  for (const part of result.content) {
    if (part.type === "text") values.push(parseText(part.text));
    else if (part.type === "json") values.push(structuredClone(part.json));
  }
  return values.length === 0 ? null : values.length === 1 ? values[0] : values;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
