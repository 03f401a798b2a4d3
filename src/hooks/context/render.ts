/**
 * What the ContextHook reads of what it shows the model besides the conversation: the run's
 * AG-UI context items and the JSON Pointers of its workspace values (rendering them is in
 * `rewrite.ts`, which loads with the agent's first run).
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { KabooError } from "../../errors.js";

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
/** The `tool:<name>` prefix of a context item's description (see {@link itemTool}). @internal */
export const TOOL_PREFIX = /^tool:([A-Za-z0-9_.-]+)(?:\s+|$)/;
const POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;

/**
 * The browser tool an item belongs to: its description starts with
 * `tool:<name>` followed by a space or the end (`"tool:canvas Open document"`).
 * @returns The tool's name, or `undefined` for an item of no tool.
 */
export function itemTool(item: ContextItem): string | undefined {
  return TOOL_PREFIX.exec(item.description)?.[1];
}

/**
 * One of the run's context items, checked (the host's, so untrusted).
 * @param entry - One entry of what the host put under `CONTEXT_ITEMS_KEY`.
 * @returns The item (only its `description` and `value`), or `undefined` when it is not one.
 */
export function readItem(entry: unknown): ContextItem | undefined {
  const parsed = itemSchema.safeParse(entry);
  return parsed.success ? parsed.data : undefined;
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

/** One rendered view. */
export interface RenderedView {
  name: string;
  base: unknown;
  changes: unknown;
}
