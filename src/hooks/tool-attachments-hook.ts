/**
 * ToolAttachmentsHook: unpacks `attachments` in a tool result into image/document blocks.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { sizedString } from "../agent/shared/lean-schemas.js";
import { AfterToolCallEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import type {
  DocumentBlock,
  ImageBlock,
  JsonValue,
  ToolResultBlock,
  ToolResultContent,
} from "../agent/messages/messages.js";
import { isObject } from "../agent/shared/guards.js";

/** MIME types that become image blocks. */
export const ATTACHMENT_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** MIME types that become document blocks. */
export const ATTACHMENT_DOCUMENT_TYPES: readonly string[] = [
  "application/pdf",
  "application/json",
  "text/plain",
  "text/csv",
  "text/markdown",
  "text/html",
];

const attachmentSchema = z.object({
  name: z.optional(sizedString(0, 512)),
  mimeType: sizedString(1),
  data: z.optional(z.string()),
  url: z.optional(z.string()),
});

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATA_URL_PREFIX = /^data:([^;,]*)(?:;[^,]*)?;base64,/i;
const URL_PROTOCOLS = new Set(["https:", "data:", "blob:"]);

type Media = ImageBlock | DocumentBlock;
type Checked = { ok: true; block: Media } | { ok: false; why: string };

function checkAttachment(raw: unknown): Checked {
  const parsed = attachmentSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, why: "it is not an object with a string mimeType" };
  const { name, data, url } = parsed.data;
  const mimeType = parsed.data.mimeType.split(";")[0]!.trim().toLowerCase();
  const kind = ATTACHMENT_IMAGE_TYPES.includes(mimeType)
    ? "image"
    : ATTACHMENT_DOCUMENT_TYPES.includes(mimeType)
      ? "document"
      : undefined;
  if (!kind) return { ok: false, why: `unsupported MIME type ${JSON.stringify(parsed.data.mimeType)}` };
  if ((data === undefined) === (url === undefined))
    return { ok: false, why: "it needs exactly one of data (base64) or url" };
  const block = { type: kind, mimeType, ...(name !== undefined ? { name } : {}) } as Media;
  if (data !== undefined) {
    const b64 = data.replace(DATA_URL_PREFIX, "").replace(/\s+/g, "");
    if (!isBase64(b64)) return { ok: false, why: "its data is not valid base64" };
    block.data = b64;
  } else {
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(url as string);
    } catch {
      return { ok: false, why: "its url is not a valid URL" };
    }
    if (!URL_PROTOCOLS.has(parsedUrl.protocol))
      return { ok: false, why: `its url scheme ${parsedUrl.protocol} is not allowed (https:, data:, blob:)` };
    block.url = url as string;
  }
  return { ok: true, block };
}

function isBase64(s: string): boolean {
  if (s.length === 0 || !BASE64.test(s)) return false;
  try {
    atob(s);
    return true;
  } catch {
    return false;
  }
}

// A tool's own data may legitimately have an `attachments` field (an email tool
// listing file names); only a list with at least one attachment-shaped object is ours.
function attachmentList(v: unknown): unknown[] | undefined {
  if (!isObject<JsonValue>(v) || !Array.isArray(v.attachments)) return undefined;
  const list = v.attachments;
  return list.some((a) => isObject<JsonValue>(a) && ("mimeType" in a || "data" in a || "url" in a)) ? list : undefined;
}

function without(obj: Record<string, JsonValue>): Record<string, JsonValue> {
  const { attachments: _dropped, ...rest } = obj;
  return rest;
}

/**
 * Unpacks attachments in a tool result into media blocks of that result.
 *
 * A result part that is JSON (or text that parses as a JSON object) with
 * `attachments: [{ name?, mimeType, data | url }]` gets one image block per
 * `image/*` attachment ({@link ATTACHMENT_IMAGE_TYPES}) and one document block
 * per supported document type ({@link ATTACHMENT_DOCUMENT_TYPES}), appended to
 * the result. The field is removed from the part and from an MCP
 * `structuredContent` copy, so the base64 is not kept twice. A bad attachment
 * (invalid base64, unsupported MIME type, disallowed URL scheme, both or neither
 * of data/url) is dropped and a text note says why; the rest of the result stays.
 * A result without the field is left untouched (the same object). A `data:` URL
 * prefix on `data` is accepted and removed.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [screenshot], hooks: [new ToolAttachmentsHook()] });
 * // screenshot returns { ok: true, attachments: [{ name: "page.png", mimeType: "image/png", data: "iVBOR…" }] }
 * ```
 */
export class ToolAttachmentsHook implements HookProvider {
  /** Registers the AfterToolCall unpacking. */
  registerHooks(registry: HookRegistry): void {
    registry.addCallback(AfterToolCallEvent, (event) => {
      const next = unpackAttachments(event.result);
      if (next !== event.result) event.result = next;
    });
  }
}

/**
 * The transformation {@link ToolAttachmentsHook} applies, as a pure function.
 * @param result - A tool result.
 * @returns The same object when it has no attachments, else a new result.
 */
export function unpackAttachments(result: ToolResultBlock): ToolResultBlock {
  const found: unknown[] = [];
  const content: ToolResultContent[] = [];
  let changed = false;
  for (const part of result.content) {
    if (part.type === "json") {
      const list = attachmentList(part.json);
      if (list) {
        found.push(...list);
        changed = true;
        content.push({ type: "json", json: without(part.json as Record<string, JsonValue>) });
        continue;
      }
    } else if (part.type === "text" && part.text.trimStart().startsWith("{")) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(part.text);
      } catch {
        parsed = undefined;
      }
      const list = attachmentList(parsed);
      if (list) {
        found.push(...list);
        changed = true;
        const rest = without(parsed as Record<string, JsonValue>);
        if (Object.keys(rest).length) content.push({ type: "text", text: JSON.stringify(rest) });
        continue;
      }
    }
    content.push(part);
  }
  const structured = result.structuredContent;
  const structuredList = attachmentList(structured);
  // An MCP result may carry the attachments only in structuredContent; unpack them from there then.
  if (!changed && structuredList) found.push(...structuredList);
  if (!changed && !structuredList) return result;

  const notes: string[] = [];
  found.forEach((raw, i) => {
    const checked = checkAttachment(raw);
    if (checked.ok) content.push(checked.block);
    else {
      const name = isObject<JsonValue>(raw) && typeof raw.name === "string" ? ` (${JSON.stringify(raw.name)})` : "";
      notes.push(`Attachment ${i + 1}${name} was dropped: ${checked.why}.`);
    }
  });
  if (notes.length) content.push({ type: "text", text: notes.join("\n") });
  const next: ToolResultBlock = { ...result, content };
  if (structuredList) next.structuredContent = without(structured as Record<string, JsonValue>);
  return next;
}
