/**
 * The ContextHook's rewrite of one model call's input: the run's context items, workspace values and
 * views rendered as one `<context>` block, and old tool results cleared past the budget. The hook loads
 * this module with its agent's first run (in a page: not with the page) and awaits it at the first
 * model call only.
 *
 * @module
 */
// Loaded on demand; it imports what it shares with the hook plainly.
import type { Agent } from "../../agent/agent.js";
import type { InvocationState } from "../../agent/events.js";
import type { JsonObject, Message, TextBlock } from "../../agent/messages/messages.js";
import type { ModelInput, ModelInputContext } from "../../agent/middleware.js";
import { runContext } from "../../agent/run-context.js";
import { messageChars } from "../../agent/messages/transcript-size.js";
import type { Logger } from "../../logger.js";
import type { ContextReport } from "../context-hook.js";
import { ClearingCache, createClearingMemo, type ClearingOptions } from "./clearing.js";
import { type ContextItem, type Pointer, type RenderedView, TOOL_PREFIX, itemTool, readItem } from "./render.js";
import { type LoadedView, type ViewRequest, invocationBases, loadViewRun } from "./views.js";

/** One ContextHook's settings, as the rewrite gets them. */
export interface RewriteConfig {
  readonly clearing: ClearingOptions;
  readonly clientTools: ReadonlySet<string>;
  readonly workspace: readonly Pointer[];
  readonly views: readonly LoadedView[];
  readonly logger: Logger;
  /** Stores and hands on one call's report. */
  report(report: ContextReport, invocationState: InvocationState): void;
}

/** What the hook keeps per agent: the key of its view bases, and its clearing cache once it has one. */
export interface PerAgent {
  clearing?: ClearingCache;
}

/** One ContextHook's rewrite (see `ContextHook` for what it shows and clears). */
export class ContextRewrite {
  readonly #c: RewriteConfig;
  /** Memos shared by every agent of the hook. */
  readonly #memo = createClearingMemo();

  /** @param config - The hook's settings. */
  constructor(config: RewriteConfig) {
    this.#c = config;
  }

  /**
   * Rewrites one model call's input; synchronous (no promise per model call) for a hook without views.
   * @param own - The agent's entry of the hook.
   * @param input - The input so far.
   * @param context - The call.
   */
  rewrite(own: PerAgent, input: ModelInput, context: ModelInputContext): ModelInput | Promise<ModelInput> {
    const items = this.#items(runContext.contextItems.raw(context.invocationState));
    const state = (runContext.sharedState.find(context.invocationState) ?? {}) as JsonObject;
    if (this.#c.views.length === 0) return this.#rewriteWith(own, input, context, items, state, []);
    return this.#render(own, context, items, state).then((views) =>
      this.#rewriteWith(own, input, context, items, state, views),
    );
  }

  /** The run's context items for this agent: items of no tool, and of a browser tool it may call. */
  #items(raw: unknown): ContextItem[] {
    const { logger, clientTools } = this.#c;
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) {
      logger.warn("kaboo: ContextHook ignored the run's context items: not an array of { description, value }.");
      return [];
    }
    const out: ContextItem[] = [];
    let bad = 0;
    for (const entry of raw) {
      const item = readItem(entry);
      if (!item) {
        bad++;
        continue;
      }
      const owner = itemTool(item);
      if (owner === undefined || clientTools.has(owner)) out.push(item);
    }
    const shape = "{ description: string, value: string }";
    if (bad > 0) logger.warn(`kaboo: ContextHook skipped ${bad} malformed context item(s); each must be ${shape}.`);
    return out;
  }

  async #render(
    own: PerAgent,
    context: ModelInputContext,
    items: ContextItem[],
    state: JsonObject,
  ): Promise<RenderedView[]> {
    const { agent, invocationState, callIndex } = context;
    const firstCall = callIndex === 0;
    const views: RenderedView[] = [];
    const { renderView } = await loadViewRun();
    const bases = invocationBases(invocationState, own, firstCall);
    const request: ViewRequest = {
      agent,
      threadId: runContext.threadId.find(invocationState),
      runId: runContext.runId.find(invocationState),
      firstCall,
      context: items,
      state: safeCopy(state),
    };
    for (const view of this.#c.views) {
      const rendered = await renderView(view, request, bases, this.#c.logger);
      if (rendered) views.push(rendered);
    }
    return views;
  }

  #rewriteWith(
    own: PerAgent,
    input: ModelInput,
    { agent, invocationState, callIndex }: ModelInputContext,
    items: ContextItem[],
    state: JsonObject,
    views: RenderedView[],
  ): ModelInput {
    const text = this.#renderContext(items, state, views);
    const block: TextBlock | undefined = text ? { type: "text", text } : undefined;
    // What the block adds to the JSON of the last message (or of a new one).
    const blockChars = block ? JSON.stringify(block).length + 1 : 0;
    const fixed = (input.systemPrompt?.length ?? 0) + blockChars;
    own.clearing ??= new ClearingCache(messageChars);
    const outcome = own.clearing.rewrite(input.messages, fixed, agent as Agent, this.#c.clearing, this.#memo);
    // withBlock edits the array it gets: never the one this middleware was given.
    const fresh = () => (outcome.messages === input.messages ? outcome.messages.slice() : outcome.messages);
    const messages = block ? withBlock(fresh(), block) : outcome.messages;
    this.#c.report(
      {
        agent: agent.name,
        callIndex,
        cleared: outcome.cleared,
        newlyCleared: outcome.newlyCleared,
        tokensSaved: Math.ceil((fixed + outcome.rawChars) / 4) - Math.ceil((fixed + outcome.outChars) / 4),
        inputTokens: Math.ceil((fixed + outcome.outChars) / 4),
        triggered: outcome.triggered,
      },
      invocationState,
    );
    return { ...input, messages };
  }

  /**
   * What the model should see besides the conversation, or `""` when there is nothing. Sections appear
   * only when they have content; absent workspace paths say so.
   */
  #renderContext(items: readonly ContextItem[], state: unknown, views: readonly RenderedView[]): string {
    const lines: string[] = [];
    if (items.length > 0) {
      lines.push("Context from the app:");
      for (const item of items) {
        const owner = itemTool(item);
        const label =
          owner === undefined
            ? item.description
            : `${item.description.replace(TOOL_PREFIX, "") || owner} (for tool ${owner})`;
        lines.push(`- ${label}: ${item.value}`);
      }
    }
    if (this.#c.workspace.length > 0) {
      lines.push("Workspace (shared state):");
      for (const pointer of this.#c.workspace) {
        const value = resolvePointer(state, pointer);
        lines.push(`- ${pointer.text || "(whole state)"}: ${value === undefined ? "(absent)" : JSON.stringify(value)}`);
      }
    }
    for (const view of views) {
      lines.push(`View ${view.name}:`);
      if (view.base !== undefined && view.base !== null) lines.push(`Base: ${show(view.base)}`);
      if (view.changes !== undefined && view.changes !== null)
        lines.push(`Changes since the base: ${show(view.changes)}`);
    }
    return lines.length === 0 ? "" : `<context>\n${lines.join("\n")}\n</context>`;
  }
}

const INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * The value a pointer designates, or `undefined` when the path is absent.
 * Walks own properties only: fast-json-patch's getValueByPointer would follow
 * inherited ones (`/constructor`) and throws on a missing parent.
 */
function resolvePointer(document: unknown, pointer: Pointer): unknown {
  let current = document;
  for (const token of pointer.tokens) {
    if (Array.isArray(current)) {
      if (!INDEX.test(token)) return undefined;
      current = current[Number(token)];
    } else if (typeof current === "object" && current !== null && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else return undefined;
  }
  return current;
}

const show = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

function withBlock(messages: Message[], block: TextBlock): Message[] {
  const last = messages[messages.length - 1];
  if (last?.role === "user") messages[messages.length - 1] = { ...last, content: [...last.content, block] };
  else messages.push({ role: "user", content: [block] });
  return messages;
}

function safeCopy(state: JsonObject): JsonObject {
  try {
    return structuredClone(state);
  } catch {
    return {};
  }
}
