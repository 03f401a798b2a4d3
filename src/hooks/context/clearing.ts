/**
 * Clearing old tool results from the copy of a conversation sent to the model,
 * incrementally: a per-agent cache remembers the rewritten prefix, so a call
 * costs a pass of identity checks plus the new messages, however many results
 * were cleared before.
 *
 * @module
 */
// Imports nothing at run time: ContextHook loads it on demand (with rewrite.ts), and a module it shared
// with the page would be split into a chunk of its own that the page loads anyway.
import type { Agent } from "../../agent/agent.js";
import type { ContentBlock, Message, ToolResultBlock } from "../../agent/messages/messages.js";
import type { messageChars } from "../../agent/messages/transcript-size.js";

/** How clearing is configured (see `ContextHook`). */
export interface ClearingOptions {
  readonly trigger: number | null;
  readonly keepLast: number;
  readonly minChars: number;
  readonly keepTools: ReadonlySet<string>;
}

/** Memos shared by every agent of one hook: keyed by immutable transcript objects. */
export interface ClearingMemo {
  /** Characters of a tool result's payload. */
  readonly resultChars: WeakMap<ToolResultBlock, number>;
  /** The placeholder a cleared result was given, so a cleared result stays cleared, identically. */
  readonly placeholders: WeakMap<ToolResultBlock, ToolResultBlock>;
}

/** What one rewrite did. */
export interface ClearingOutcome {
  /** The messages to send: untouched messages are the caller's own objects, and when nothing is cleared the array is the caller's own (copy it before editing). */
  messages: Message[];
  /** Results shown as placeholders in this input. */
  cleared: number;
  /** Of those, how many were cleared at this call. */
  newlyCleared: number;
  /** JSON characters of the messages as given, and as rewritten. */
  rawChars: number;
  outChars: number;
  /** Whether the estimated input passed the trigger at this call. */
  triggered: boolean;
}

/** Creates the memos of one hook. */
export function createClearingMemo(): ClearingMemo {
  return { resultChars: new WeakMap(), placeholders: new WeakMap() };
}

/**
 * The per-agent cache. Messages already in the transcript are assumed not to be
 * mutated in place (replace a message object to change it); a replaced message,
 * a replaced or resized content array, or a shorter transcript are detected and
 * the cache is rebuilt from that point.
 */
export class ClearingCache {
  #seen: Message[] = [];
  #contents: ContentBlock[][] = [];
  #lens: number[] = [];
  #out: Message[] = [];
  #rawLen: number[] = [];
  #outLen: number[] = [];
  #clearedAt: number[] = [];
  #rawSum = 0;
  #outSum = 0;
  #cleared = 0;
  /** Indices of tool-result turns (user messages holding results). */
  #turns: number[] = [];
  /** How many of `#turns` have been decided (cleared as far as they may be). */
  #decided = 0;
  #names = new Map<string, string>();
  /** Ids ever cleared for this agent: a rebuilt cache does not count them as new. */
  #everCleared = new Set<string>();
  #newly = 0;
  readonly #measure: typeof messageChars;

  /** @param measure - JSON characters of a message: `messageChars`, the runner's per-message cache. */
  constructor(measure: typeof messageChars) {
    this.#measure = measure;
  }

  /**
   * Rewrites `messages` (never mutating them).
   * @param messages - The conversation as the model would get it.
   * @param fixedChars - Characters of the rest of the input (system prompt, rendered context).
   */
  rewrite(
    messages: readonly Message[],
    fixedChars: number,
    agent: Agent,
    options: ClearingOptions,
    memo: ClearingMemo,
  ): ClearingOutcome {
    const seen = this.#seen;
    // Locals, not private fields, in the loop: it runs over the whole transcript on every model call.
    const contents = this.#contents;
    const lens = this.#lens;
    let k = 0;
    const limit = Math.min(seen.length, messages.length);
    while (k < limit) {
      const m = messages[k] as Message;
      if (m !== seen[k] || m.content !== contents[k] || m.content.length !== lens[k]) break;
      k++;
    }
    if (k < seen.length) this.#truncate(k);
    for (let i = k; i < messages.length; i++) this.#append(messages[i] as Message);

    const n = messages.length;
    const arrayChars = (sum: number) => (n === 0 ? 2 : 2 + sum + n - 1);
    this.#newly = 0;
    // The input as given decides, so what is sent is a function of the transcript,
    // whether or not this cache was warm; as the transcript only grows, a cleared
    // result stays cleared and the cleared prefix stays stable for prompt caches.
    const triggered =
      options.trigger !== null && Math.ceil((fixedChars + arrayChars(this.#rawSum)) / 4) > options.trigger;
    const old = this.#turns.length - Math.max(0, options.keepLast);
    if (triggered)
      while (this.#decided < old) this.#clearTurn(this.#turns[this.#decided++] as number, agent, options, memo);
    return {
      // Nothing cleared: the rewrite is the input itself, so the call copies no array of its length.
      messages: this.#cleared === 0 ? (messages as Message[]) : this.#out.slice(),
      cleared: this.#cleared,
      newlyCleared: this.#newly,
      rawChars: arrayChars(this.#rawSum),
      outChars: arrayChars(this.#outSum),
      triggered,
    };
  }

  #append(m: Message): void {
    const i = this.#seen.length;
    // The runner's cache: a message is measured once for every estimate that asks.
    const len = this.#measure(m);
    this.#seen.push(m);
    this.#contents.push(m.content);
    this.#lens.push(m.content.length);
    this.#out.push(m);
    this.#rawLen.push(len);
    this.#outLen.push(len);
    this.#clearedAt.push(0);
    this.#rawSum += len;
    this.#outSum += len;
    let results = false;
    for (const block of m.content) {
      if (block.type === "toolUse") this.#names.set(block.toolUseId, block.name);
      else if (block.type === "toolResult") results = true;
    }
    if (results && m.role === "user") this.#turns.push(i);
  }

  #truncate(k: number): void {
    for (let i = this.#seen.length - 1; i >= k; i--) {
      this.#rawSum -= this.#rawLen[i] as number;
      this.#outSum -= this.#outLen[i] as number;
      this.#cleared -= this.#clearedAt[i] as number;
    }
    for (const list of [
      this.#seen,
      this.#contents,
      this.#lens,
      this.#out,
      this.#rawLen,
      this.#outLen,
      this.#clearedAt,
    ] as unknown[][])
      list.length = k;
    while (this.#turns.length > 0 && (this.#turns[this.#turns.length - 1] as number) >= k) this.#turns.pop();
    this.#decided = Math.min(this.#decided, this.#turns.length);
  }

  #clearTurn(i: number, agent: Agent, options: ClearingOptions, memo: ClearingMemo): void {
    const message = this.#seen[i] as Message;
    let content: ContentBlock[] | undefined;
    let count = 0;
    message.content.forEach((block, j) => {
      if (block.type !== "toolResult") return;
      const name = this.#names.get(block.toolUseId) ?? "unknown";
      if (options.keepTools.has(name) || agent.tool(name)?.kind === "agent") return;
      const size = resultChars(block, memo);
      if (size < options.minChars) return;
      let placeholder = memo.placeholders.get(block);
      if (placeholder === undefined) {
        placeholder = clearedResult(block, name, size);
        memo.placeholders.set(block, placeholder);
      }
      content ??= message.content.slice();
      content[j] = placeholder;
      count++;
      if (!this.#everCleared.has(block.toolUseId)) {
        this.#everCleared.add(block.toolUseId);
        this.#newly++;
      }
    });
    if (content === undefined) return;
    const copy: Message = { ...message, content };
    const len = JSON.stringify(copy).length;
    this.#out[i] = copy;
    this.#outSum += len - (this.#outLen[i] as number);
    this.#outLen[i] = len;
    this.#clearedAt[i] = count;
    this.#cleared += count;
  }
}

/**
 * Characters of a result's payload: text, JSON as sent, media data or URL, and
 * `structuredContent` (it is cleared with the rest).
 */
export function resultChars(block: ToolResultBlock, memo: ClearingMemo): number {
  let size = memo.resultChars.get(block);
  if (size !== undefined) return size;
  size = block.structuredContent === undefined ? 0 : JSON.stringify(block.structuredContent).length;
  for (const part of block.content) {
    if (part.type === "text") size += part.text.length;
    else if (part.type === "json") size += JSON.stringify(part.json).length;
    else size += (part.data?.length ?? 0) + (part.url?.length ?? 0);
  }
  memo.resultChars.set(block, size);
  return size;
}

// Matches exactly the text clearedResult writes; kept beside it so the two change together.
const PLACEHOLDER = /^\[Result of .+ cleared to save context \(\d+ characters\)\. Call .+ again if you need it\.\]$/;

/**
 * Whether a tool result is a clearing placeholder (so masking it again is a no-op).
 * @param block - A tool result.
 */
export function isClearedResult(block: ToolResultBlock): boolean {
  const only = block.content.length === 1 ? block.content[0] : undefined;
  return block.structuredContent === undefined && only?.type === "text" && PLACEHOLDER.test(only.text);
}

function clearedResult(block: ToolResultBlock, name: string, size: number): ToolResultBlock {
  return {
    type: "toolResult",
    toolUseId: block.toolUseId,
    status: block.status,
    content: [
      {
        type: "text",
        text: `[Result of ${name} cleared to save context (${size} characters). Call ${name} again if you need it.]`,
      },
    ],
  };
}
