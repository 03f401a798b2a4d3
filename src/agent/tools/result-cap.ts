/**
 * The bounds on a tool result: what the model is sent of one result is bounded in characters, in
 * nesting depth and in media bytes, whatever the tool (function, MCP, client, agent) returned, so
 * one huge or hostile result cannot flood the transcript, overflow the stack of the code that reads
 * it, or ride along in every later model request. A part that breaks a bound is dropped with a note
 * and the rest is kept; the status stays the tool's own, even when reading the result fails.
 *
 * @module
 */
import { defaultLogger, type Logger } from "../../logger.js";
import { withinDepth } from "../shared/json-depth.js";
import type { ToolResultBlock, ToolResultContent } from "../messages/messages.js";

/** Default of {@link AgentTool.maxResultChars}: characters of text (and JSON) one result may hold. */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000;

/** Default deepest nesting of a JSON part or `structuredContent` of a result. */
export const DEFAULT_MAX_RESULT_DEPTH = 64;

/** Default of {@link AgentTool.maxResultMediaBytes}: bytes of images and documents one result may carry (4 MiB). */
export const DEFAULT_MAX_RESULT_MEDIA_BYTES = 4 * 1024 * 1024;

/** The bounds of one result. */
export interface ToolResultLimits {
  /** Characters of text and JSON. Default {@link DEFAULT_MAX_TOOL_RESULT_CHARS}. */
  maxChars?: number | undefined;
  /** Bytes of inline media (base64 decoded). Default {@link DEFAULT_MAX_RESULT_MEDIA_BYTES}. */
  maxMediaBytes?: number | undefined;
  /** Nesting of JSON parts and `structuredContent`. Default {@link DEFAULT_MAX_RESULT_DEPTH}. */
  maxDepth?: number | undefined;
}

/**
 * Bytes of a media part's inline data (base64 decoded); a part given by URL carries none.
 * @param part - An image or document part.
 * @returns The byte count (0 when the data is not a string).
 */
export function mediaPartBytes(part: { data?: unknown }): number {
  return typeof part.data === "string" ? Math.floor((part.data.length * 3) / 4) : 0;
}

/**
 * Bounds a result: JSON parts nested deeper than `maxDepth` are dropped; images and documents are
 * kept in order while they fit in `maxMediaBytes`; text and JSON are cut to `maxChars` in all (JSON
 * parts that do not fit become cut text); a `structuredContent` too deep or larger than `maxChars`
 * is dropped. Each kind of drop is said once, in a last text part, and logged. Never throws: a result
 * our code cannot read keeps its readable text, its status and a note.
 * @param block - The result.
 * @param limits - A number (`maxChars`, as before) or {@link ToolResultLimits}. Default: all defaults.
 * @param logger - Where a cut is reported. Default `console`.
 * @returns The block itself when it fits, else a bounded copy.
 */
export function capToolResult(
  block: ToolResultBlock,
  limits: number | ToolResultLimits = {},
  logger: Logger = defaultLogger,
): ToolResultBlock {
  const l = typeof limits === "number" ? { maxChars: limits } : limits;
  const bounds = {
    maxChars: l.maxChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
    maxMediaBytes: l.maxMediaBytes ?? DEFAULT_MAX_RESULT_MEDIA_BYTES,
    maxDepth: l.maxDepth ?? DEFAULT_MAX_RESULT_DEPTH,
  };
  try {
    return bound(block, bounds, logger);
  } catch (error) {
    return salvage(block, bounds.maxChars, error, logger);
  }
}

type Bounds = { maxChars: number; maxMediaBytes: number; maxDepth: number };

/** What was dropped or cut, for the one note. */
interface Cuts {
  chars: number;
  deepParts: number;
  deepStructured: boolean;
  media: number;
  mediaBytes: number;
}

function bound(block: ToolResultBlock, b: Bounds, logger: Logger): ToolResultBlock {
  const cuts: Cuts = { chars: 0, deepParts: 0, deepStructured: false, media: 0, mediaBytes: 0 };
  let chars = b.maxChars;
  let media = b.maxMediaBytes;
  let content: ToolResultContent[] | undefined;
  const parts = block.content;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as ToolResultContent;
    if (part.type === "image" || part.type === "document") {
      const bytes = mediaPartBytes(part);
      if (bytes <= media) {
        media -= bytes;
        content?.push(part);
      } else {
        content ??= parts.slice(0, i);
        cuts.media++;
        cuts.mediaBytes += bytes;
      }
      continue;
    }
    if (part.type === "json" && !withinDepth(part.json, b.maxDepth)) {
      content ??= parts.slice(0, i);
      cuts.deepParts++;
      continue;
    }
    const text = part.type === "text" ? part.text : JSON.stringify(part.json);
    if (text.length <= chars) {
      chars -= text.length;
      content?.push(part);
      continue;
    }
    content ??= parts.slice(0, i);
    const kept = cutAt(text, chars);
    if (kept.length > 0) content.push({ type: "text", text: kept });
    cuts.chars += text.length - kept.length;
    chars -= kept.length;
  }
  const structuredContent = boundStructured(block.structuredContent, b, cuts);
  const note = noteOf(cuts, b);
  if (note === undefined) return block;
  const out: ToolResultBlock = { ...block, content: content ?? [...parts] };
  if (structuredContent === undefined) delete out.structuredContent;
  out.content.push({ type: "text", text: note });
  logger.warn("A tool result was over the size cap and was cut.", {
    toolUseId: block.toolUseId,
    maxChars: b.maxChars,
    cutChars: cuts.chars,
    note,
  });
  return out;
}

/** The structured result as kept: dropped (`undefined`, the cut noted) when too deep or over `maxChars`. */
function boundStructured(value: unknown, b: Bounds, cuts: Cuts): unknown {
  if (value === undefined) return undefined;
  if (!withinDepth(value, b.maxDepth)) {
    cuts.deepStructured = true;
    return undefined;
  }
  const size = JSON.stringify(value).length;
  if (size <= b.maxChars) return value;
  cuts.chars += size;
  return undefined;
}

function noteOf(c: Cuts, b: Bounds): string | undefined {
  const said: string[] = [];
  if (c.deepParts) said.push(`${c.deepParts} JSON parts nested deeper than ${b.maxDepth} levels dropped`);
  if (c.deepStructured) said.push(`the structured result was nested deeper than ${b.maxDepth} levels and was dropped`);
  if (c.media)
    said.push(
      `${c.media} images or documents (${c.mediaBytes} bytes) dropped: one result carries at most ${b.maxMediaBytes} bytes of media`,
    );
  if (c.chars) said.push(`result cut to ${b.maxChars} characters: ${c.chars} more not shown`);
  return said.length ? `[${said.join("; ")}]` : undefined;
}

/** What is left of a result our code could not read: its text parts (cut), its status, and why. */
function salvage(block: ToolResultBlock, maxChars: number, error: unknown, logger: Logger): ToolResultBlock {
  let chars = maxChars;
  const content: ToolResultContent[] = [];
  const parts: unknown[] = Array.isArray(block?.content) ? block.content : [];
  for (const part of parts) {
    const text = (part as { type?: unknown; text?: unknown } | null)?.text;
    if ((part as { type?: unknown } | null)?.type !== "text" || typeof text !== "string" || chars <= 0) continue;
    const kept = cutAt(text, chars);
    chars -= kept.length;
    content.push({ type: "text", text: kept });
  }
  content.push({ type: "text", text: "[part of this result could not be read and was dropped]" });
  logger.warn("A tool result could not be read in full.", { toolUseId: block?.toolUseId, error: String(error) });
  return {
    type: "toolResult",
    toolUseId: String(block?.toolUseId ?? ""),
    status: block?.status === "error" ? "error" : "success",
    content,
  };
}

// Never splits a surrogate pair: half of one is not valid text for a model API.
function cutAt(text: string, n: number): string {
  if (n <= 0) return "";
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}
