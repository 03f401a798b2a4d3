/**
 * The media bound of one model request: images and documents the conversation carries (the user's
 * and those inside tool results) are sent newest first while they fit in a budget; older ones are
 * left out of that request with a note. The transcript itself is not changed, so a later request
 * with room (after ContextHook cleared old results, say) sends them again.
 *
 * @module
 */
import type { MessageSums } from "./message-sums.js";
import type { ContentBlock, Message, ToolResultBlock, ToolResultContent } from "./messages.js";
import { mediaPartBytes } from "./result-cap.js";

/** Default of `AgentConfig.maxMediaBytes`: bytes of media one model request may carry (16 MiB). */
export const DEFAULT_MAX_REQUEST_MEDIA_BYTES = 16 * 1024 * 1024;

interface Sized {
  content: ContentBlock[];
  blocks: number;
  bytes: number;
}

// Keyed by transcript objects (treated as immutable, as transcript-size.ts does): a request costs the new messages.
const sizes = new WeakMap<Message, Sized>();

function blockBytes(block: ContentBlock): number {
  if (block.type === "image" || block.type === "document") return mediaPartBytes(block);
  if (block.type !== "toolResult") return 0;
  let n = 0;
  for (const part of block.content) if (part.type === "image" || part.type === "document") n += mediaPartBytes(part);
  return n;
}

/**
 * Bytes of inline media a message carries, cached per message object.
 * @param message - A transcript message.
 * @returns Decoded bytes of its images and documents, tool results included.
 */
export function messageMediaBytes(message: Message): number {
  const known = sizes.get(message);
  if (known !== undefined && known.content === message.content && known.blocks === message.content.length)
    return known.bytes;
  let bytes = 0;
  for (const block of message.content) bytes += blockBytes(block);
  sizes.set(message, { content: message.content, blocks: message.content.length, bytes });
  return bytes;
}

const note = (kind: string, bytes: number, max: number) =>
  `[${kind} (${bytes} bytes) left out of this request: the conversation carries more than ${max} bytes of media, and newer media come first]`;

/**
 * The messages to send, with media past `maxBytes` (counted from the newest) left out.
 * @param messages - The model input (not modified).
 * @param maxBytes - The budget. Default {@link DEFAULT_MAX_REQUEST_MEDIA_BYTES}.
 * @param sums - Running sums of {@link messageMediaBytes} kept for this conversation across requests, so a
 *   grown transcript costs its new messages. Default: none (every message is looked up).
 * @returns `messages` itself when everything fits, else a copy in which only changed messages are new objects.
 */
export function withinMediaBudget(
  messages: Message[],
  maxBytes: number = DEFAULT_MAX_REQUEST_MEDIA_BYTES,
  sums?: MessageSums,
): Message[] {
  let total = 0;
  if (sums) total = sums.total(messages);
  else for (const m of messages) total += messageMediaBytes(m);
  if (total <= maxBytes) return messages;
  const out = messages.slice();
  let left = maxBytes;
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i] as Message;
    const bytes = messageMediaBytes(m);
    if (bytes === 0) continue;
    if (bytes <= left) {
      left -= bytes;
      continue;
    }
    const kept = keepNewest(m, left, maxBytes);
    out[i] = kept.message;
    left = kept.left;
  }
  return out;
}

/** A copy of `m` keeping its newest media within `left` bytes. */
function keepNewest(m: Message, left: number, max: number): { message: Message; left: number } {
  const content = m.content.slice();
  for (let j = content.length - 1; j >= 0; j--) {
    const block = content[j] as ContentBlock;
    if (block.type === "toolResult") {
      const r = boundResult(block, left, max);
      content[j] = r.block;
      left = r.left;
    } else if (block.type === "image" || block.type === "document") {
      const bytes = mediaPartBytes(block);
      if (bytes <= left) left -= bytes;
      else content[j] = { type: "text", text: note(block.type === "image" ? "an image" : "a document", bytes, max) };
    }
  }
  return { message: { ...m, content }, left };
}

function boundResult(block: ToolResultBlock, left: number, max: number): { block: ToolResultBlock; left: number } {
  let dropped = 0;
  let droppedBytes = 0;
  const kept: ToolResultContent[] = [];
  for (let k = block.content.length - 1; k >= 0; k--) {
    const part = block.content[k] as ToolResultContent;
    if (part.type === "image" || part.type === "document") {
      const bytes = mediaPartBytes(part);
      if (bytes > left) {
        dropped++;
        droppedBytes += bytes;
        continue;
      }
      left -= bytes;
    }
    kept.push(part);
  }
  if (dropped === 0) return { block, left };
  kept.reverse().push({ type: "text", text: note(`${dropped} images or documents`, droppedBytes, max) });
  return { block: { ...block, content: kept }, left };
}
