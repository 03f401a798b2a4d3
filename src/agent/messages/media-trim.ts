/**
 * Leaving media out of a model request that is over its budget, newest media first. Loaded by
 * `withinMediaBudget` the first time a request is over. It imports nothing at run time (a module it
 * shared with the page would be split into a chunk of its own that the page loads anyway), so the
 * sizes come in as functions.
 *
 * @module
 */
import type { ContentBlock, Message, ToolResultBlock, ToolResultContent } from "./messages.js";

/** What {@link trimMedia} measures with (`messageMediaBytes` and `mediaPartBytes`). */
export interface MediaSizes {
  messageBytes(message: Message): number;
  partBytes(part: { data?: unknown }): number;
}

const note = (kind: string, bytes: number, max: number) =>
  `[${kind} (${bytes} bytes) left out of this request: the conversation carries more than ${max} bytes of media, and newer media come first]`;

/**
 * A copy of `messages` keeping the newest media within `maxBytes`; an image or document left out
 * becomes a note. Messages that keep all their media are the same objects.
 * @param messages - The model input (not modified).
 * @param maxBytes - The budget.
 * @param sizes - How media are measured.
 * @returns The copy.
 */
export function trimMedia(messages: Message[], maxBytes: number, sizes: MediaSizes): Message[] {
  const out = messages.slice();
  let left = maxBytes;
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i] as Message;
    const bytes = sizes.messageBytes(m);
    if (bytes === 0) continue;
    if (bytes <= left) {
      left -= bytes;
      continue;
    }
    const kept = keepNewest(m, left, maxBytes, sizes.partBytes);
    out[i] = kept.message;
    left = kept.left;
  }
  return out;
}

/** A copy of `m` keeping its newest media within `left` bytes. */
function keepNewest(
  m: Message,
  left: number,
  max: number,
  partBytes: MediaSizes["partBytes"],
): { message: Message; left: number } {
  const content = m.content.slice();
  for (let j = content.length - 1; j >= 0; j--) {
    const block = content[j] as ContentBlock;
    if (block.type === "toolResult") {
      const r = boundResult(block, left, max, partBytes);
      content[j] = r.block;
      left = r.left;
    } else if (block.type === "image" || block.type === "document") {
      const bytes = partBytes(block);
      if (bytes <= left) left -= bytes;
      else content[j] = { type: "text", text: note(block.type === "image" ? "an image" : "a document", bytes, max) };
    }
  }
  return { message: { ...m, content }, left };
}

function boundResult(
  block: ToolResultBlock,
  left: number,
  max: number,
  partBytes: MediaSizes["partBytes"],
): { block: ToolResultBlock; left: number } {
  let dropped = 0;
  let droppedBytes = 0;
  const kept: ToolResultContent[] = [];
  for (let k = block.content.length - 1; k >= 0; k--) {
    const part = block.content[k] as ToolResultContent;
    if (part.type === "image" || part.type === "document") {
      const bytes = partBytes(part);
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
