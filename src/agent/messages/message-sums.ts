/**
 * Running sums of a per-message measure over a transcript that grows between calls.
 *
 * A per-message cache (a `WeakMap` keyed by message) still costs one hash look-up per message per
 * model call, which made a long tool loop quadratic: at 3,000 cycles the media budget and the token
 * estimate were a quarter of the loop's time. This keeps the messages measured last time in an array
 * and compares the new transcript with it by identity (a few array reads per message), measuring only
 * the messages past the first difference.
 *
 * @module
 */
import type { ContentBlock, Message } from "./messages.js";

/**
 * Sums `measure` over a transcript, remeasuring only what changed since the previous call.
 *
 * A message counts as unchanged when it is the same object, with the same `content` array of the same
 * length, at the same index as before: the same rule as the per-message caches of `transcript-size.ts`.
 * Anything from the first changed message on is measured again.
 *
 * @example
 * ```ts
 * const chars = new MessageSums((m) => JSON.stringify(m).length);
 * chars.total(agent.messages); // measures every message
 * chars.total(agent.messages); // after two appended messages: measures those two
 * ```
 */
export class MessageSums {
  #seen: Message[] = [];
  #contents: ContentBlock[][] = [];
  #lens: number[] = [];
  /** `#upTo[i]`: the measure summed over messages 0..i. */
  #upTo: number[] = [];
  readonly #measure: (message: Message) => number;

  /**
   * @param measure - The per-message measure; must depend only on the message's content.
   */
  constructor(measure: (message: Message) => number) {
    this.#measure = measure;
  }

  /**
   * @param messages - The transcript (not modified).
   * @returns The measure summed over `messages`.
   */
  total(messages: readonly Message[]): number {
    const seen = this.#seen;
    const contents = this.#contents;
    const lens = this.#lens;
    const upTo = this.#upTo;
    const limit = Math.min(seen.length, messages.length);
    let k = 0;
    while (k < limit) {
      const m = messages[k] as Message;
      if (m !== seen[k] || m.content !== contents[k] || m.content.length !== lens[k]) break;
      k++;
    }
    if (k < seen.length) {
      seen.length = k;
      contents.length = k;
      lens.length = k;
      upTo.length = k;
    }
    let sum = k === 0 ? 0 : (upTo[k - 1] as number);
    for (let i = k; i < messages.length; i++) {
      const m = messages[i] as Message;
      sum += this.#measure(m);
      seen.push(m);
      contents.push(m.content);
      lens.push(m.content.length);
      upTo.push(sum);
    }
    return sum;
  }
}
