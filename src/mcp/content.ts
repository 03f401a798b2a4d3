/**
 * Maps an MCP `tools/call` result onto the runner's {@link ToolOutput}.
 *
 * The result comes from a remote server, so it is checked here even though the
 * SDK's client validates it too: a host may bring its own client.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { looseObject, sizedString } from "../agent/shared/lean-schemas.js";
import { jsonValueSchema } from "../agent/interrupts/interrupt.js";
import { withinDepth } from "../agent/shared/json-depth.js";
import { DEFAULT_MAX_RESULT_DEPTH } from "../agent/tools/result-cap.js";
import type { JsonValue, ToolResultContent } from "../agent/messages/messages.js";
import type { ToolOutput } from "../agent/tools/tools.js";
import { describe } from "../errors.js";

const text = looseObject({ type: z.literal("text"), text: z.string() });
const media = looseObject({
  type: z.literal(["image", "audio"]),
  data: z.string(),
  mimeType: sizedString(1),
});
const link = looseObject({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.optional(z.string()),
  description: z.optional(z.string()),
  mimeType: z.optional(z.string()),
});
const resource = looseObject({
  type: z.literal("resource"),
  resource: z.union([
    looseObject({ uri: z.string(), mimeType: z.optional(z.string()), text: z.string() }),
    looseObject({ uri: z.string(), mimeType: z.optional(z.string()), blob: z.string() }),
  ]),
});
const item = z.discriminatedUnion("type", [text, media, link, resource]);

const resultSchema = looseObject({
  content: z.optional(z.array(z.unknown())),
  isError: z.optional(z.boolean()),
  structuredContent: z.optional(z.unknown()),
  // Servers on protocol 2024-10-07 and older answer `{ toolResult }` instead of `content`.
  toolResult: z.optional(z.unknown()),
});

/**
 * Converts one `tools/call` result: text → text parts, image → image parts, embedded text
 * resources → text, embedded blobs → image or document parts, resource links and audio → a
 * short text note (the runner has no part for them), `isError` → status `"error"`.
 * `structuredContent` is kept; when the content is empty it is also given as a JSON part so the
 * model sees it. Each malformed item becomes a short text note (its index and type); the valid
 * items are kept, so a call that ran is never reported as failed because of one bad item.
 *
 * @param result - The result, as the server sent it (untrusted).
 * @returns The tool output.
 */
export function mcpResultToOutput(result: unknown): ToolOutput {
  try {
    return mapResult(result);
  } catch {
    // Our own reading failed (a shape no check foresaw): the call ran, so it keeps its status and its text.
    return salvaged(result);
  }
}

function mapResult(result: unknown): ToolOutput {
  const parsed = resultSchema.safeParse(result);
  if (!parsed.success) {
    return { status: "error", content: [{ type: "text", text: "The MCP server sent a malformed tool result." }] };
  }
  const { content = [], isError, structuredContent, toolResult } = parsed.data;
  const parts = content.map(toPart);
  const output: ToolOutput = { status: isError === true ? "error" : "success", content: parts };
  // Measured before the (recursive) JSON schema reads it: 5,000 levels overflow the stack.
  const deep = structuredContent !== undefined && !withinDepth(structuredContent, DEFAULT_MAX_RESULT_DEPTH);
  const structured = structuredContent === undefined || deep ? undefined : jsonValueSchema.safeParse(structuredContent);
  if (structured?.success) output.structuredContent = structured.data;
  else if (deep) parts.push({ type: "text", text: DEEP_NOTE });
  else if (structured)
    parts.push({ type: "text", text: "[the server's structuredContent was not JSON and was dropped]" });
  if (parts.length === 0) {
    const fallback = output.structuredContent ?? (toolResult !== undefined ? jsonOrNull(toolResult) : undefined);
    if (fallback !== undefined) parts.push({ type: "json", json: fallback });
  }
  return output;
}

const DEEP_NOTE = `[the server's structured result was nested deeper than ${DEFAULT_MAX_RESULT_DEPTH} levels and was dropped]`;

function salvaged(result: unknown): ToolOutput {
  const r = (typeof result === "object" && result !== null ? result : {}) as { content?: unknown; isError?: unknown };
  const items: unknown[] = Array.isArray(r.content) ? r.content : [];
  const content: ToolResultContent[] = [];
  for (const item of items) {
    const t = (item as { type?: unknown; text?: unknown } | null) ?? {};
    if (t.type === "text" && typeof t.text === "string") content.push({ type: "text", text: t.text });
  }
  content.push({ type: "text", text: "[part of the MCP result could not be read and was dropped]" });
  return { status: r.isError === true ? "error" : "success", content };
}

function jsonOrNull(value: unknown): JsonValue {
  if (!withinDepth(value, DEFAULT_MAX_RESULT_DEPTH)) return null;
  const parsed = jsonValueSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function toPart(raw: unknown, index: number): ToolResultContent {
  const parsed = item.safeParse(raw);
  if (!parsed.success) {
    const type = typeof raw === "object" && raw !== null ? describe((raw as { type?: unknown }).type, 40) : typeof raw;
    // Short on purpose: a server can send thousands of bad items, and the model needs only to know one was dropped.
    return { type: "text", text: `[unreadable MCP content item ${index} of type ${type}]` };
  }
  const c = parsed.data;
  switch (c.type) {
    case "text":
      return { type: "text", text: c.text };
    case "image":
      return { type: "image", data: c.data, mimeType: c.mimeType };
    case "audio":
      return { type: "text", text: `[audio ${c.mimeType}, not shown]` };
    case "resource_link":
      return {
        type: "text",
        text: `[resource ${c.name ?? c.uri}${c.mimeType ? ` (${c.mimeType})` : ""}: ${c.uri}]${c.description ? ` ${c.description}` : ""}`,
      };
    case "resource": {
      const r = c.resource;
      if (typeof r.text === "string") return { type: "text", text: r.text };
      const blob = String(r.blob);
      const mimeType = r.mimeType ?? "application/octet-stream";
      return mimeType.startsWith("image/")
        ? { type: "image", data: blob, mimeType, name: r.uri }
        : { type: "document", data: blob, mimeType, name: r.uri };
    }
    default: {
      const never: never = c;
      return never;
    }
  }
}
