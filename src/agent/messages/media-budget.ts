/**
 * The media bound of one model request: images and documents the conversation carries (the user's
 * and those inside tool results) are sent newest first while they fit in a budget; older ones are
 * left out of that request with a note. The transcript itself is not changed, so a later request
 * with room (after ContextHook cleared old results, say) sends them again. What leaves media out
 * (`media-trim.ts`) loads the first time a request is over its budget: most conversations never are.
 *
 * @module
 */
import type { MessageSums } from "./message-sums.js";
import type { ContentBlock, Message } from "./messages.js";
import { DEFAULT_MAX_REQUEST_MEDIA_BYTES } from "../limits.js";
import { mediaPartBytes } from "../tools/result-cap.js";

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
  const bytes = mediaBytes(message);
  sizes.set(message, { content: message.content, blocks: message.content.length, bytes });
  return bytes;
}

/**
 * {@link messageMediaBytes} without its cache, for callers that keep their own (`MessageSums`).
 * @param message - A transcript message.
 * @returns Decoded bytes of its images and documents.
 */
export function mediaBytes(message: Message): number {
  let bytes = 0;
  for (const block of message.content) bytes += blockBytes(block);
  return bytes;
}

/**
 * The messages to send, with media past `maxBytes` (counted from the newest) left out.
 * @param messages - The model input (not modified).
 * @param maxBytes - The budget. Default {@link DEFAULT_MAX_REQUEST_MEDIA_BYTES}.
 * @param sums - Running sums of {@link messageMediaBytes} kept for this conversation across requests, so a
 *   grown transcript costs its new messages. Default: none (every message is looked up).
 * @returns `messages` itself when everything fits (synchronously), else a promise of a copy in which only
 *   changed messages are new objects.
 */
export function withinMediaBudget(
  messages: Message[],
  maxBytes: number = DEFAULT_MAX_REQUEST_MEDIA_BYTES,
  sums?: MessageSums,
): Message[] | Promise<Message[]> {
  let total = 0;
  if (sums) total = sums.total(messages);
  else for (const m of messages) total += messageMediaBytes(m);
  if (total <= maxBytes) return messages;
  return import("./media-trim.js").then((m) =>
    m.trimMedia(messages, maxBytes, { messageBytes: messageMediaBytes, partBytes: mediaPartBytes }),
  );
}
