/**
 * What the ContextHook shows the model besides the conversation: the run's
 * AG-UI context items, workspace values picked from the shared state by JSON
 * Pointer, and working views.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { KabooError } from "../../errors.js";
import type { Logger } from "../../logger.js";

/** An AG-UI context item (`RunAgentInput.context`). */
export interface ContextItem {
  description: string;
  value: string;
}

/** A workspace pointer or other ContextHook option is malformed. */
export class InvalidPointerError extends KabooError {
  readonly code = "INVALID_JSON_POINTER" as const;
  /** The pointer as given. */
  readonly pointer: string;
  constructor(pointer: string) {
    super(
      `Workspace pointer ${JSON.stringify(pointer)} is not an RFC 6901 JSON Pointer (e.g. "/cart/items/0"; "~" must be written "~0" and "/" in a key "~1").`,
    );
    this.pointer = pointer;
  }
}

const itemSchema = z.object({ description: z.string(), value: z.string() });
const TOOL_PREFIX = /^tool:([A-Za-z0-9_.-]+)(?:\s+|$)/;
const POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * The browser tool an item belongs to: its description starts with
 * `tool:<name>` followed by a space or the end (`"tool:canvas Open document"`).
 * @returns The tool's name, or `undefined` for an item of no tool.
 */
export function itemTool(item: ContextItem): string | undefined {
  return TOOL_PREFIX.exec(item.description)?.[1];
}

/**
 * Validates the run's context items and keeps those for this agent: items of
 * no tool, and items of a browser tool it may call.
 * @param raw - What the host put under `CONTEXT_ITEMS_KEY` (untrusted).
 */
export function agentItems(raw: unknown, clientTools: ReadonlySet<string>, logger: Logger): ContextItem[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    logger.warn("kaboo: ContextHook ignored the run's context items: not an array of { description, value }.");
    return [];
  }
  const out: ContextItem[] = [];
  let bad = 0;
  for (const entry of raw) {
    const parsed = itemSchema.safeParse(entry);
    if (!parsed.success) {
      bad++;
      continue;
    }
    const owner = itemTool(parsed.data);
    if (owner === undefined || clientTools.has(owner)) out.push(parsed.data);
  }
  if (bad > 0)
    logger.warn(
      `kaboo: ContextHook skipped ${bad} malformed context item(s); each must be { description: string, value: string }.`,
    );
  return out;
}

/** A validated pointer: its text and its unescaped reference tokens. */
export interface Pointer {
  readonly text: string;
  readonly tokens: readonly string[];
}

/**
 * Parses an RFC 6901 JSON Pointer.
 * @throws InvalidPointerError when it is malformed.
 */
export function parsePointer(text: string): Pointer {
  if (typeof text !== "string" || !POINTER.test(text)) throw new InvalidPointerError(String(text));
  return {
    text,
    tokens:
      text === ""
        ? []
        : text
            .slice(1)
            .split("/")
            // RFC 6901 §4, in its order (~1 first). Inline: fast-json-patch is CommonJS and cannot be tree-shaken,
            // so importing it for this one line put all of it (3 KB gzipped) into every app that uses ContextHook.
            .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~")),
  };
}

/**
 * The value a pointer designates, or `undefined` when the path is absent.
 * Walks own properties only: fast-json-patch's getValueByPointer would follow
 * inherited ones (`/constructor`) and throws on a missing parent.
 */
export function resolvePointer(document: unknown, pointer: Pointer): unknown {
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

/** One rendered view. */
export interface RenderedView {
  name: string;
  base: unknown;
  changes: unknown;
}

const show = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * Renders what the model should see besides the conversation, or `""` when there is nothing.
 * Sections appear only when they have content; absent workspace paths say so.
 */
export function renderContext(
  items: readonly ContextItem[],
  workspace: readonly Pointer[],
  state: unknown,
  views: readonly RenderedView[],
): string {
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
  if (workspace.length > 0) {
    lines.push("Workspace (shared state):");
    for (const pointer of workspace) {
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
