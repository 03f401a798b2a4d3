/**
 * ContextHook: rewrites the copy of an agent's conversation its model is sent —
 * clears old tool results past a token budget, and shows the model the run's
 * context items, workspace values and working views.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import { AgentInitializedEvent, BeforeInvocationEvent, type InvocationState } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import type { ModelInput, ModelInputContext } from "../agent/middleware.js";
import { UserError, describe } from "../errors.js";
import { parsePointer } from "./context/render.js";
import type { ContextRewrite, PerAgent, RewriteConfig } from "./context/rewrite.js";
import { LoadedView, loadViewRun, type ViewSpec } from "./context/views.js";
import { defaultLogger, type Logger } from "../logger.js";
import { lazy } from "../lazy.js";

export { InvalidPointerError, itemTool, type ContextItem } from "./context/render.js";
export {
  InvalidViewSpecError,
  ViewLoadError,
  type View,
  type ViewFn,
  type ViewRequest,
  type ViewSpec,
} from "./context/views.js";

/**
 * Tool results shorter than this many characters are never cleared. A cleared
 * result still costs its placeholder (about 120 characters), so clearing a
 * short result saves little and loses what the model read; 1,000 characters
 * (about 250 tokens) is where the saving clearly outweighs the loss.
 */
export const DEFAULT_MIN_CHARS = 1000;

/** `invocationState` key where the last {@link ContextReport} of the run is stored. */
export const CONTEXT_REPORT_KEY = "kabooContextReport";

/** What the ContextHook did at one model call (for the event stream and a context meter). */
export interface ContextReport {
  /** The agent's name. */
  agent: string;
  /** 0 for the invocation's first model call. */
  callIndex: number;
  /** Results shown as placeholders in this call's input. */
  cleared: number;
  /** Of those, how many were cleared at this call. */
  newlyCleared: number;
  /** Estimated tokens clearing removed from this call's input (four characters a token). */
  tokensSaved: number;
  /** Estimated tokens of the input as sent: system prompt, messages, rendered context. */
  inputTokens: number;
  /** Whether the input passed `clearTrigger` at this call. */
  triggered: boolean;
}

/** Options of {@link ContextHook}. */
export interface ContextHookOptions {
  /** Estimated input tokens past which old tool results are cleared; `null` never clears. Default `null`. */
  clearTrigger?: number | null;
  /** Turns of tool results (all results of one model response) that always stay, most recent first. Default 3. */
  keepLast?: number;
  /** Results shorter than this many characters always stay. Default {@link DEFAULT_MIN_CHARS}. */
  minChars?: number;
  /** Tools whose results always stay (exact names). A delegate's (`kind: "agent"`) always do. Default `[]`. */
  keepTools?: readonly string[];
  /** The browser tools this agent may call; context items of other browser tools stay out. Default `[]`. */
  clientTools?: readonly string[];
  /** RFC 6901 JSON Pointers into the shared state, shown at every call. Default `[]`. */
  workspace?: readonly string[];
  /** Working views, or import specs of them (`"module#export"`, `"module:export"`). Default `[]`. */
  views?: readonly ViewSpec[];
  /**
   * A view spec that cannot be loaded (the module fails to import, or has no such function):
   * `"throw"` fails the model call with a `ViewLoadError`, so a broken view is seen at once in
   * development; `"warn"` logs once and runs without the view. Default `"throw"`. Call
   * {@link ContextHook.ready} at start-up to find out before the first run.
   */
  viewLoadFailure?: "throw" | "warn";
  /** Called with each call's report; a callback that throws is logged. */
  onReport?: (report: ContextReport) => void;
  /** Default `console`. */
  logger?: Logger;
}

/** The rewrite's module, loaded with a hook's first run (see {@link lazy}). */
const loadRewrite = lazy(() => import("./context/rewrite.js"));
/**
 * Rewrites the copy of an agent's conversation its model is sent; the
 * transcript itself is never changed (untouched messages are shared, changed
 * ones copied).
 *
 * - **Clearing.** When the estimated input (system prompt, messages and the
 *   rendered context; four characters a token) passes `clearTrigger`, every old
 *   tool result is replaced by a placeholder naming the tool and the size and
 *   saying the tool can be called again. Results of the last `keepLast` turns,
 *   results under `minChars`, and results of `keepTools` and of delegates stay.
 *   A cleared result stays cleared while it is in the transcript (stable prefix
 *   for prompt caches). Blocks are replaced, never dropped: every toolUse keeps its toolResult.
 * - **Context items** (`invocationState.aguiContext`, `CONTEXT_ITEMS_KEY`, AG-UI
 *   `{ description, value }`): an item belongs to a browser tool when its
 *   description starts with `tool:<name>` and a space (`"tool:canvas Open document"`).
 *   Items of no tool and of `clientTools` are shown; items of other tools are not.
 * - **Workspace**: the values at the `workspace` pointers in the shared state
 *   (`invocationState.sharedState`, `SHARED_STATE_KEY`); a missing path shows as absent.
 * - **Views**: see {@link ViewSpec}; the base is kept for the invocation, the
 *   changes are the latest. A view that throws or answers garbage is skipped for that call and logged;
 *   a view spec that cannot be loaded fails the call (see `viewLoadFailure`).
 *
 * What is shown is one text block, `<context>…</context>`, appended to a copy
 * of the last message (the prompt or the latest tool results), or as a new user
 * message when the last message is the assistant's. The system prompt is left
 * alone so its prompt-cache entry survives.
 *
 * The middleware is installed when the agent initialises (its first
 * invocation). A ContextHook added to an agent that already initialised is
 * installed at the start of its next invocation. One hook may serve several
 * agents; it installs once per agent. The rewrite's code loads then (in a page: with the
 * first run, not with the page): the first model call waits for it, and a failed load fails
 * that call (the run fails with the error) and is tried again by the next one.
 *
 * @example
 * ```ts
 * const agent = new Agent({
 *   model,
 *   tools,
 *   hooks: [new ContextHook({ clearTrigger: 50_000, keepTools: ["read_policy"], workspace: ["/cart"] })],
 * });
 * ```
 */
export class ContextHook implements HookProvider {
  /** The settings the rewrite is made with (see {@link ContextHook.registerHooks}). */
  readonly #config: RewriteConfig;
  readonly #onReport: ((report: ContextReport) => void) | undefined;
  readonly #agents = new WeakMap<Agent, PerAgent>();
  /** The rewrite, once loaded (see {@link ContextHook.registerHooks}). */
  #rewriter: ContextRewrite | undefined;

  /**
   * @param options - See {@link ContextHookOptions}; every option has a default.
   * @throws InvalidPointerError for a malformed workspace pointer; InvalidViewSpecError for a malformed
   *   view spec; UserError for a negative or non-integer `clearTrigger`, `keepLast` or `minChars`.
   */
  constructor(options: ContextHookOptions = {}) {
    const { clearTrigger = null, keepLast = 3, minChars = DEFAULT_MIN_CHARS } = options;
    for (const [name, value] of [
      ["clearTrigger", clearTrigger],
      ["keepLast", keepLast],
      ["minChars", minChars],
    ] as const) {
      if (value !== null && !(Number.isInteger(value) && value >= 0)) {
        throw new UserError(
          `ContextHook: ${name} must be a non-negative integer${name === "clearTrigger" ? " or null" : ""}, got ${String(value)}.`,
        );
      }
    }
    this.#config = {
      clearing: { trigger: clearTrigger, keepLast, minChars, keepTools: new Set(options.keepTools ?? []) },
      clientTools: new Set(options.clientTools ?? []),
      workspace: (options.workspace ?? []).map(parsePointer),
      views: (options.views ?? []).map((v, i) => new LoadedView(v, i, options.viewLoadFailure ?? "throw")),
      logger: options.logger ?? defaultLogger,
      report: (report, invocationState) => this.#report(report, invocationState),
    };
    this.#onReport = options.onReport;
  }

  /**
   * Loads every import-spec view now, and the code that rewrites the model's input (which otherwise loads
   * with the first run), so the first model call waits for neither.
   * @returns Resolves once all are loaded.
   * @throws ViewLoadError for the first view that cannot be loaded, whatever `viewLoadFailure` says; the
   *   error of a failed load of the hook's own code.
   */
  async ready(): Promise<void> {
    const [{ loadView }] = await Promise.all([loadViewRun(), loadRewrite()]);
    await Promise.all(this.#config.views.map((v) => loadView(v)));
  }

  /**
   * Installs the middleware on `AgentInitializedEvent`, or on the next invocation when added later. The
   * rewrite's code starts loading then (in a page: with the agent's first run, not with the page); the
   * first model call waits for it, later ones do not. A failed load fails that model call (and the run)
   * and the next call loads it again.
   */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(AgentInitializedEvent, (event) => this.#install(event.agent));
    registry.addCallback(BeforeInvocationEvent, (event) => this.#install(event.agent));
  }

  #install(agent: Agent): void {
    if (!this.#rewriter) loadRewrite().catch(() => undefined); // the first model call reports a failure
    if (this.#agents.has(agent)) return;
    const own: PerAgent = {};
    this.#agents.set(agent, own);
    agent.modelInput.use((input, context) => this.#rewrite(own, input, context));
  }

  /** The rewrite; synchronous (no promise per model call) for a hook without views, once loaded. */
  #rewrite(own: PerAgent, input: ModelInput, context: ModelInputContext): ModelInput | Promise<ModelInput> {
    if (this.#rewriter) return this.#rewriter.rewrite(own, input, context);
    return loadRewrite().then((m) => {
      this.#rewriter ??= new m.ContextRewrite(this.#config);
      return this.#rewriter.rewrite(own, input, context);
    });
  }

  #report(report: ContextReport, invocationState: InvocationState): void {
    invocationState[CONTEXT_REPORT_KEY] = report;
    if (!this.#onReport) return;
    try {
      this.#onReport(report);
    } catch (error) {
      this.#config.logger.warn(`kaboo: ContextHook onReport threw: ${describe(error)}`);
    }
  }
}
