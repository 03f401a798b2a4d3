/**
 * Loading and calling a ContextHook's views: loaded with the first call of a hook that has views (a
 * ContextHook without views never loads it).
 *
 * @module
 */
import type { JsonValue } from "../../agent/messages/messages.js";
import type { Logger } from "../../logger.js";
import type { RenderedView } from "./render.js";
import { type LoadedView, type ViewFn, type ViewRequest, ViewLoadError, readView } from "./views.js";
import { describe } from "../../errors.js";

/**
 * Loads a view's import spec (once).
 * @throws ViewLoadError when it cannot be loaded, whatever the view's `failure` says: the caller asked.
 */
export async function loadView(view: LoadedView): Promise<void> {
  if (view.fn || !view.spec) return;
  const { module, exportName } = view.spec;
  view.loading ??= (async () => {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(/* @vite-ignore */ module)) as Record<string, unknown>;
    } catch (error) {
      throw new ViewLoadError(`View "${view.name}": cannot import "${module}": ${describe(error)}`, { cause: error });
    }
    const fn = mod[exportName];
    if (typeof fn !== "function")
      throw new ViewLoadError(`View "${view.name}": "${module}" has no function export "${exportName}".`);
    return fn as ViewFn;
  })();
  view.fn = await view.loading;
}

async function loaded(view: LoadedView, logger: Logger): Promise<ViewFn | undefined> {
  try {
    await loadView(view);
    return view.fn;
  } catch (error) {
    // A view that silently never runs is a bug nobody sees; only an app that opted in keeps going.
    if (view.failure === "throw") throw error;
    if (view.warned) return undefined;
    view.warned = true;
    logger.warn(`kaboo: view "${view.name}" could not be loaded and is skipped: ${describe(error)}`);
    return undefined;
  }
}

/**
 * Calls a view; a view that throws or answers garbage is logged and skipped.
 * @param bases - This invocation's kept bases (per view).
 * @returns What the model is shown of it, or `undefined` when it is skipped.
 */
export async function renderView(
  view: LoadedView,
  request: ViewRequest,
  bases: Map<LoadedView, JsonValue>,
  logger: Logger,
): Promise<RenderedView | undefined> {
  const fn = await loaded(view, logger);
  if (!fn) return undefined;
  let answer: unknown;
  try {
    answer = await fn(request);
  } catch (error) {
    logger.warn(`kaboo: view "${view.name}" threw and is skipped for this call: ${describe(error)}`);
    return undefined;
  }
  if (answer === null || answer === undefined) return undefined;
  const read = readView(answer);
  if (typeof read === "string") {
    logger.warn(
      `kaboo: view "${view.name}" returned something that is not a View { base?, changes? } of JSON; skipped. ${read}`,
    );
    return undefined;
  }
  if (!bases.has(view) && read.view.base !== undefined && read.view.base !== null) bases.set(view, read.view.base);
  return { name: view.name, base: bases.get(view), changes: read.view.changes };
}
