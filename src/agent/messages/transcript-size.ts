/**
 * JSON sizes of messages, remembered per message object, so estimating a growing transcript
 * costs the new messages rather than a `JSON.stringify` of the whole conversation per model call
 * (which made a long run quadratic in its length).
 *
 * @module
 */
import type { MessageSums } from "./message-sums.js";
import type { ContentBlock, Message } from "./messages.js";

interface Sized {
  /** The content array the size was measured on, and its length then. */
  content: ContentBlock[];
  blocks: number;
  chars: number;
}

// One cache for every agent: keys are transcript objects, so it holds nothing a run has dropped.
const sizes = new WeakMap<Message, Sized>();

/**
 * `JSON.stringify(message).length`, cached per message object.
 *
 * Messages in a transcript are treated as immutable, as `ContextHook` does: replace a message (or
 * its `content` array) to change it. A replaced content array or a changed block count is detected
 * and measured again; an edit inside a block of a cached message is not.
 *
 * @param message - The message to measure.
 * @returns Its JSON length in UTF-16 code units.
 */
export function messageChars(message: Message): number {
  const known = sizes.get(message);
  if (known !== undefined && known.content === message.content && known.blocks === message.content.length)
    return known.chars;
  const chars = JSON.stringify(message).length;
  sizes.set(message, { content: message.content, blocks: message.content.length, chars });
  return chars;
}

/**
 * `JSON.stringify(messages).length` (brackets and commas included), from cached per-message sizes.
 *
 * @param messages - The conversation.
 * @param sums - Running sums of {@link messageChars} kept for this conversation across calls, so a
 *   grown transcript costs its new messages. Default: none (every message is looked up).
 * @returns Its JSON length in UTF-16 code units.
 */
export function transcriptChars(messages: readonly Message[], sums?: MessageSums): number {
  const brackets = messages.length === 0 ? 2 : 1 + messages.length;
  if (sums) return brackets + sums.total(messages);
  let sum = brackets;
  for (const m of messages) sum += messageChars(m);
  return sum;
}

/**
 * Estimated tokens of a model input: the characters of the system prompt, of the messages' JSON and
 * of `extra`, four to a token. Message sizes are cached per message object (`messageChars`),
 * so estimating a growing transcript costs only its new messages.
 *
 * @param systemPrompt - The system prompt, if any.
 * @param messages - The conversation; treated as immutable once measured (replace a message to change it).
 * @param extra - Further text sent with the input. Default `""`.
 * @returns The estimate, rounded up.
 */
export function estimateTokens(systemPrompt: string | undefined, messages: readonly Message[], extra = ""): number {
  return Math.ceil(((systemPrompt?.length ?? 0) + transcriptChars(messages) + extra.length) / 4);
}
