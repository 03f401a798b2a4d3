/**
 * Working views: callables (or import specs of them) that render part of the
 * app for the model as a base, kept for the whole invocation, plus the changes since.
 *
 * @module
 */
import { privateRunKey } from "../../agent/run-context.js";
import * as z from "zod/v4/mini";
import { formatIssues } from "../../agent/tools/issues.js";
import type { Agent } from "../../agent/agent.js";
import type { InvocationState } from "../../agent/events.js";
import { jsonValueSchema } from "../../agent/interrupts/interrupt.js";
import type { JsonObject, JsonValue } from "../../agent/messages/messages.js";
import { KabooError } from "../../errors.js";
import { splitImportSpec } from "../import-spec.js";
import { lazy } from "../../lazy.js";
import type { ContextItem } from "./render.js";

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

/**
 * A view as the hook holds it: its function, or the import spec it is loaded from (once; a failure is
 * remembered). Loading and calling it (`view-run.ts`) load with the first call of a hook that has views.
 */
export class LoadedView {
  /** The view's name in logs and errors: its function's, or its import spec. */
  readonly name: string;
  /** The view's function, once known (given, or loaded from {@link LoadedView.spec}). @internal */
  fn: ViewFn | undefined;
  /** The load of {@link LoadedView.spec} under way, if any. @internal */
  loading: Promise<ViewFn> | undefined;
  /** Where the view is imported from, for a view given as an import spec. */
  readonly spec: { module: string; exportName: string } | undefined;
  /** What a spec that cannot be loaded does: `"throw"` fails the call, `"warn"` logs and skips the view. */
  readonly failure: "throw" | "warn";
  /** Whether a `"warn"` view that failed to load was reported already (it is reported once). @internal */
  warned = false;

  /**
   * @param failure - See {@link LoadedView.failure}. Default `"throw"`.
   * @throws InvalidViewSpecError for a spec that is not `"module"`, `"module#export"` or `"module:export"`.
   */
  constructor(view: ViewSpec, index: number, failure: "throw" | "warn" = "throw") {
    this.failure = failure;
    if (typeof view === "function") {
      this.fn = view;
      this.name = view.name || `view ${index + 1}`;
      return;
    }
    const spec = typeof view === "string" ? splitImportSpec(view) : undefined;
    if (!spec) {
      throw new InvalidViewSpecError(
        `View ${JSON.stringify(view)} must be a function or an import spec "module#export" or "module:export".`,
      );
    }
    this.spec = spec;
    this.name = view as string;
  }
}

/**
 * A view's answer, checked.
 * @param answer - What the view returned.
 * @returns The view, or what is wrong with it.
 */
export function readView(
  answer: unknown,
): { view: { base?: JsonValue | undefined; changes?: JsonValue | undefined } } | string {
  const parsed = viewSchema.safeParse(answer);
  return parsed.success ? { view: parsed.data } : formatIssues(parsed.error.issues);
}

/** Loading and calling views (`view-run.ts`): loaded on the first call of a hook that has views. */
export const loadViewRun = lazy(() => import("./view-run.js"));

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
