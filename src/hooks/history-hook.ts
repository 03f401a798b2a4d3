/**
 * HistoryHook: seeds an agent's transcript from the run's history exchange
 * before each invocation and writes it back after, shaped by a HistoryPolicy.
 *
 * @module
 */
import { AfterInvocationEvent, BeforeInvocationEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import type { Message } from "../agent/messages/messages.js";
import { describe, UserError } from "../errors.js";
import type { Model } from "../agent/model.js";
import { createClearingMemo } from "./context/clearing.js";
import { DEFAULT_MIN_CHARS } from "./context-hook.js";
import { getHistoryExchange } from "./history/exchange.js";
import { summarizeHead } from "./history/summary.js";
import { raceAbort } from "../agent/shared/abort-wait.js";
import { estimateTokens, loadTranscript, maskTranscript } from "./history/transcript.js";
import { defaultLogger, type Logger } from "../logger.js";

export {
  HISTORY_EXCHANGE_KEY,
  MemoryHistoryExchange,
  createHistoryExchange,
  getHistoryExchange,
  type HistoryExchange,
} from "./history/exchange.js";
export { SUMMARY_ACK, SUMMARY_HEADER } from "./history/summary.js";

/** Options of {@link HistoryPolicy}. */
export interface HistoryPolicyOptions {
  /** `"full"` writes the transcript back as captured; `"masked"` masks every finished call. Default `"full"`. */
  keep?: "full" | "masked";
  /** Results shorter than this many characters survive masking. Default {@link DEFAULT_MIN_CHARS}. */
  minChars?: number;
  /** Tools whose results survive masking; a delegate's (`kind: "agent"`) always do. Default `[]`. */
  keepTools?: Iterable<string>;
  /** Estimated tokens (four characters a token) a masked copy may reach before its oldest calls are summarised. Default `null` (never). */
  summarizeOver?: number | null;
  /** The model that writes the summary; required with `summarizeOver`. Default `null`. */
  summarizer?: Model | null;
  /** How long a summary may take before the unsummarised history is kept instead, ms. Default 60000. */
  summarizeTimeoutMs?: number;
}

/**
 * How a {@link HistoryHook} shapes the transcript it writes back.
 *
 * With `keep: "masked"`, each finished call's result becomes the ContextHook's
 * placeholder ("[Result of x cleared to save context …]") unless it is short,
 * of a kept tool or of a delegate; a transcript stored in full is masked when
 * loaded. `summarizeOver` applies only to `"masked"` (as in the Python
 * package): past it, everything before the newest prompts that fit in half of
 * `summarizeOver` is replaced by one summary pair at the head (a user message
 * starting with {@link SUMMARY_HEADER}, then {@link SUMMARY_ACK}).
 *
 * @example
 * ```ts
 * const policy = new HistoryPolicy({ keep: "masked", summarizeOver: 20_000, summarizer: cheapModel });
 * ```
 */
export class HistoryPolicy {
  readonly keep: "full" | "masked";
  readonly minChars: number;
  readonly keepTools: ReadonlySet<string>;
  readonly summarizeOver: number | null;
  readonly summarizer: Model | null;
  readonly summarizeTimeoutMs: number;

  /**
   * @param options - See {@link HistoryPolicyOptions}; every field optional.
   * @throws UserError for an unknown `keep`, a negative `minChars`, a non-positive `summarizeOver`,
   *   or `summarizeOver` with `keep: "masked"` but no `summarizer`.
   */
  constructor(options: HistoryPolicyOptions = {}) {
    const {
      keep = "full",
      minChars = DEFAULT_MIN_CHARS,
      keepTools = [],
      summarizeOver = null,
      summarizer = null,
    } = options;
    if (keep !== "full" && keep !== "masked")
      throw new UserError(`HistoryPolicy keep must be "full" or "masked", not ${JSON.stringify(keep)}.`);
    if (!(minChars >= 0)) throw new UserError(`HistoryPolicy minChars must be a number >= 0, not ${String(minChars)}.`);
    if (summarizeOver !== null && !(summarizeOver > 0))
      throw new UserError(
        `HistoryPolicy summarizeOver must be a positive number or null, not ${String(summarizeOver)}.`,
      );
    if (keep === "masked" && summarizeOver !== null && summarizer === null)
      throw new UserError("HistoryPolicy summarizeOver needs a summarizer model.");
    this.keep = keep;
    this.minChars = minChars;
    this.keepTools = new Set(keepTools);
    this.summarizeOver = summarizeOver;
    this.summarizer = summarizer;
    this.summarizeTimeoutMs = options.summarizeTimeoutMs ?? 60_000;
  }
}

/** Options of {@link HistoryHook}. */
export interface HistoryHookOptions {
  /** Whether the agent remembers across turns. `false`: an empty transcript before every invocation, never written back. */
  enabled: boolean;
  /** How the written-back transcript is shaped. Default `new HistoryPolicy()` (in full). */
  policy?: HistoryPolicy;
  /** Where corrupt transcripts and summarizer failures are reported. Default {@link defaultLogger}. */
  logger?: Logger;
}

/**
 * Seeds an agent's transcript from, and writes it back into, the run's
 * history exchange (`invocationState[HISTORY_EXCHANGE_KEY]`, see
 * `createHistoryExchange`). One instance per agent; agents that share a
 * history group share a `key`, so the second sees what the first wrote.
 *
 * - Before each invocation, `agent.messages` becomes the stored transcript
 *   under `key` (validated with zod and for toolUse/toolResult pairing; a
 *   corrupt one is logged and the agent starts empty), or `[]` when nothing is
 *   stored. With no exchange in the run, the agent keeps its own transcript.
 * - After each invocation — finished, paused, cancelled or failed alike, since
 *   the runner keeps `agent.messages` consistent in every case — a copy is
 *   written back. A run paused on an interrupt loses nothing: the runner holds
 *   the paused toolUse message and its finished results in
 *   `agent.interruptState.context`, not in `agent.messages`, so the stored
 *   transcript never holds an unanswered call, and the resume appends the
 *   message and its results once the calls complete.
 * - `enabled: false`: `agent.messages = []` before every new invocation (not
 *   before a resume, which continues the paused invocation), never written back.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, hooks: [new HistoryHook("main", { enabled: true, policy: new HistoryPolicy({ keep: "masked" }) })] });
 * const invocationState = {};
 * const history = createHistoryExchange(invocationState, stored);
 * await agent.invoke("Next question", { invocationState });
 * save(history.toJSON());
 * ```
 */
export class HistoryHook implements HookProvider {
  readonly key: string;
  readonly enabled: boolean;
  readonly policy: HistoryPolicy;
  readonly #logger: Logger;
  // Keyed by immutable transcript objects, so concurrent runs can share it.
  readonly #memo = createClearingMemo();

  /**
   * @param key - History bucket key for this agent; agents sharing a history group share a key.
   * @param options - `enabled` (required), `policy` (default in full), `logger` (default console).
   */
  constructor(key: string, options: HistoryHookOptions) {
    if (typeof key !== "string" || key === "") throw new UserError("HistoryHook needs a non-empty history key.");
    this.key = key;
    this.enabled = options.enabled;
    this.policy = options.policy ?? new HistoryPolicy();
    this.#logger = options.logger ?? defaultLogger;
  }

  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeInvocationEvent, (e) => this.#seed(e));
    registry.addCallback(AfterInvocationEvent, (e) => this.#capture(e));
  }

  #seed(event: BeforeInvocationEvent): void {
    const { agent } = event;
    if (!this.enabled) {
      if (!event.resuming) agent.messages = [];
      return;
    }
    const exchange = getHistoryExchange(event.invocationState);
    if (exchange === undefined) return;
    let raw: unknown;
    try {
      raw = exchange.get(this.key);
    } catch (error) {
      this.#logger.warn(`kaboo: HistoryHook could not read history ${JSON.stringify(this.key)}; starting empty.`, {
        error: describe(error),
      });
      agent.messages = [];
      return;
    }
    if (raw === undefined || raw === null) {
      agent.messages = [];
      return;
    }
    const loaded = loadTranscript(raw);
    if (!loaded.ok) {
      this.#logger.warn(
        `kaboo: HistoryHook ignored the stored history ${JSON.stringify(this.key)}: it is malformed; starting empty.`,
        { agent: agent.name, why: loaded.why },
      );
      agent.messages = [];
      return;
    }
    agent.messages = this.policy.keep === "masked" ? this.#mask(loaded.messages, event) : loaded.messages;
  }

  async #capture(event: AfterInvocationEvent): Promise<void> {
    if (!this.enabled) return;
    const exchange = getHistoryExchange(event.invocationState);
    if (exchange === undefined) return;
    let messages: Message[] = event.agent.messages;
    if (this.policy.keep === "masked") {
      messages = this.#mask(messages, event);
      const { summarizeOver, summarizer } = this.policy;
      if (summarizeOver !== null && summarizer !== null && estimateTokens(messages) > summarizeOver) {
        messages = await this.#summarize(messages, summarizeOver, summarizer, event);
      }
    }
    try {
      exchange.set(this.key, structuredClone(messages));
    } catch (error) {
      this.#logger.error(`kaboo: HistoryHook could not store history ${JSON.stringify(this.key)}.`, {
        agent: event.agent.name,
        error: describe(error),
      });
    }
  }

  #mask(messages: readonly Message[], event: BeforeInvocationEvent | AfterInvocationEvent): Message[] {
    return maskTranscript(
      messages,
      event.agent,
      { minChars: this.policy.minChars, keepTools: this.policy.keepTools },
      this.#memo,
    );
  }

  async #summarize(
    messages: Message[],
    over: number,
    summarizer: Model,
    event: AfterInvocationEvent,
  ): Promise<Message[]> {
    try {
      // A stalled summarizer must not hold the run open: it is cut off, and the history kept as is.
      const timeout = AbortSignal.timeout(this.policy.summarizeTimeoutMs);
      const run = event.agent.signal;
      const deadline = run && typeof AbortSignal.any === "function" ? AbortSignal.any([timeout, run]) : timeout;
      const summarized = await raceAbort(summarizeHead(messages, Math.floor(over / 2), summarizer, deadline), deadline);
      if (summarized === undefined)
        this.#logger.debug?.(
          `kaboo: HistoryHook found nothing to summarise in ${JSON.stringify(this.key)} (one prompt's exchange).`,
        );
      return summarized ?? messages;
    } catch (error) {
      // The summary is an optimisation: without it the masked transcript is still correct.
      this.#logger.warn(
        `kaboo: HistoryHook summarizer failed; keeping the unsummarised history ${JSON.stringify(this.key)}.`,
        {
          agent: event.agent.name,
          error: describe(error),
        },
      );
      return messages;
    }
  }
}
