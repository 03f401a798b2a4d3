/**
 * Working views: callables (or import specs of them) that render part of the
 * app for the model as a base, kept for the whole invocation, plus the changes since.
 *
 * @module
 */
import { privateRunKey } from "../../agent/run-context.js";
import * as z from "zod/v4/mini";
import { formatIssues } from "../../agent/issues.js";
import type { Agent } from "../../agent/agent.js";
import type { InvocationState } from "../../agent/events.js";
import { jsonValueSchema } from "../../agent/interrupt.js";
import type { JsonObject, JsonValue } from "../../agent/messages.js";
import { KabooError, describe } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { splitImportSpec } from "../import-spec.js";
import type { ContextItem, RenderedView } from "./render.js";

/** A working view's answer: a base for the whole invocation and the changes since it. */
export interface View {
  /** Kept from the invocation's first call that returns one; later bases are ignored. */
  base?: JsonValue | undefined;
  /** What changed since the base, at this call. */
  changes?: JsonValue | undefined;
}

/** What a working view is asked to render at one model call. */
export interface ViewRequest {
  readonly agent: Agent;
  /** The run's `threadId` (`runContext.threadId`), when the host set it. */
  readonly threadId: string | undefined;
  /** The run's `runId` (`runContext.runId`), when the host set it. */
  readonly runId: string | undefined;
  /** Whether this is the invocation's first model call, when the base is kept. */
  readonly firstCall: boolean;
  /** The run's AG-UI context items that belong to this agent. */
  readonly context: readonly ContextItem[];
  /** A copy of the shared state as of this call. */
  readonly state: Readonly<JsonObject>;
}

/** A working view. */
export type ViewFn = (request: ViewRequest) => View | null | undefined | Promise<View | null | undefined>;

/**
 * A view, or an import spec of one: `"module#export"`, `"module:export"` (the spec's Python form,
 * as `MCPCallMetaHook` takes) or `"module"` for its default export, resolved with `import()` at
 * first use (or at `ContextHook.ready()`). Use a bare package name or an absolute URL: a relative
 * one would resolve against this package.
 */
export type ViewSpec = ViewFn | string;

/** A view spec is malformed. */
export class InvalidViewSpecError extends KabooError {
  readonly code = "INVALID_VIEW_SPEC" as const;
}

/** A view spec did not resolve to a function (thrown, or logged with `viewLoadFailure: "warn"`). */
export class ViewLoadError extends KabooError {
  readonly code = "VIEW_LOAD_FAILED" as const;
}

const viewSchema = z.strictObject({ base: z.optional(jsonValueSchema), changes: z.optional(jsonValueSchema) });
/** Each (hook, agent) pair's kept view bases, per run. */
const viewBases = privateRunKey(
  "contextViewBases",
  (v): v is WeakMap<object, Map<LoadedView, JsonValue>> => v instanceof WeakMap,
);

/** A view ready to be called: loads an import spec once, remembers a failure. */
export class LoadedView {
  readonly name: string;
  #fn: ViewFn | undefined;
  #loading: Promise<ViewFn> | undefined;
  readonly #spec: { module: string; exportName: string } | undefined;
  readonly #failure: "throw" | "warn";
  #warned = false;

  /**
   * @param failure - What a spec that cannot be loaded does: `"throw"` fails the call, `"warn"` logs and skips the view.
   * @throws InvalidViewSpecError for a spec that is not `"module"`, `"module#export"` or `"module:export"`.
   */
  constructor(view: ViewSpec, index: number, failure: "throw" | "warn" = "throw") {
    this.#failure = failure;
    if (typeof view === "function") {
      this.#fn = view;
      this.name = view.name || `view ${index + 1}`;
      return;
    }
    const spec = typeof view === "string" ? splitImportSpec(view) : undefined;
    if (!spec) {
      throw new InvalidViewSpecError(
        `View ${JSON.stringify(view)} must be a function or an import spec "module#export" or "module:export".`,
      );
    }
    this.#spec = spec;
    this.name = view as string;
  }

  /**
   * Loads an import spec now.
   * @throws ViewLoadError when it cannot be loaded, whatever `failure` says: the caller asked.
   */
  async load(): Promise<void> {
    if (this.#fn || !this.#spec) return;
    const { module, exportName } = this.#spec;
    this.#loading ??= (async () => {
      let mod: Record<string, unknown>;
      try {
        mod = (await import(/* @vite-ignore */ module)) as Record<string, unknown>;
      } catch (error) {
        throw new ViewLoadError(`View "${this.name}": cannot import "${module}": ${describe(error)}`, { cause: error });
      }
      const fn = mod[exportName];
      if (typeof fn !== "function")
        throw new ViewLoadError(`View "${this.name}": "${module}" has no function export "${exportName}".`);
      return fn as ViewFn;
    })();
    this.#fn = await this.#loading;
  }

  async #load(logger: Logger): Promise<ViewFn | undefined> {
    try {
      await this.load();
      return this.#fn;
    } catch (error) {
      // A view that silently never runs is a bug nobody sees; only an app that opted in keeps going.
      if (this.#failure === "throw") throw error;
      if (this.#warned) return undefined;
      this.#warned = true;
      logger.warn(`kaboo: view "${this.name}" could not be loaded and is skipped: ${describe(error)}`);
      return undefined;
    }
  }

  /**
   * Calls the view; a view that throws or answers garbage is logged and skipped.
   * @param bases - This invocation's kept bases (per view).
   */
  async render(
    request: ViewRequest,
    bases: Map<LoadedView, JsonValue>,
    logger: Logger,
  ): Promise<RenderedView | undefined> {
    const fn = await this.#load(logger);
    if (!fn) return undefined;
    let answer: unknown;
    try {
      answer = await fn(request);
    } catch (error) {
      logger.warn(`kaboo: view "${this.name}" threw and is skipped for this call: ${describe(error)}`);
      return undefined;
    }
    if (answer === null || answer === undefined) return undefined;
    const parsed = viewSchema.safeParse(answer);
    if (!parsed.success) {
      logger.warn(
        `kaboo: view "${this.name}" returned something that is not a View { base?, changes? } of JSON; skipped. ${formatIssues(parsed.error.issues)}`,
      );
      return undefined;
    }
    if (!bases.has(this) && parsed.data.base !== undefined && parsed.data.base !== null)
      bases.set(this, parsed.data.base);
    return { name: this.name, base: bases.get(this), changes: parsed.data.changes };
  }
}

/**
 * This invocation's kept bases for one (hook, agent) pair. They live in
 * `invocationState`, so they last exactly one invocation and never leak into another run.
 */
export function invocationBases(
  invocationState: InvocationState,
  owner: object,
  firstCall: boolean,
): Map<LoadedView, JsonValue> {
  let all = viewBases.find(invocationState);
  if (!all) {
    all = new WeakMap();
    viewBases.set(invocationState, all);
  }
  let bases = all.get(owner);
  // A host that reuses one invocationState for several invocations still gets a fresh base per invocation.
  if (!bases || firstCall) {
    bases = new Map();
    all.set(owner, bases);
  }
  return bases;
}
