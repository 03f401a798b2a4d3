/**
 * EventPublisher's options, checked once at construction.
 *
 * @module
 */
import { UserError } from "../../errors.js";
import { defaultLogger, type Logger } from "../../logger.js";
import { safeCallback } from "./helpers.js";
import type { StreamEvent, StreamEventCallback } from "./types.js";

/** Options of `EventPublisher`. */
export interface EventPublisherOptions {
  /** Tool name (or name prefix) → display label. Default `{}`. */
  toolLabels?: Readonly<Record<string, string>>;
  /** Dot-path group of this agent's activity, e.g. `research.web`. Default `""` (no groups). */
  streamGroup?: string;
  /** Readable title of the group. Default `""`. */
  streamTitle?: string;
  /** Whether this agent's text is the chat reply (the UI then hides only its duplicate). Default `false`. */
  isChatReply?: boolean;
  /** Characters of tool-result text kept in `TOOL_END` (then `...`). Default `16000`. */
  maxResultLen?: number;
  /** Conversations whose `#N` counter and group are remembered; idle ones beyond it go, oldest first. Default `1000`. */
  maxThreads?: number;
  /** Where callback failures are logged. Default {@link defaultLogger}. */
  logger?: Logger;
  /** Clock for `timestamp`, milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The options with their defaults applied, and the callback made safe. */
export interface PublisherSettings {
  agentName: string;
  publish: (event: StreamEvent) => void;
  labels: Readonly<Record<string, string>>;
  group: string;
  title: string;
  isChatReply: boolean;
  maxResultLen: number;
  maxThreads: number;
  now: () => number;
}

/**
 * Applies the defaults and checks the options.
 * @throws UserError when `callback` is not a function, or `maxResultLen` or `maxThreads` is not a positive integer.
 */
export function publisherSettings(
  callback: StreamEventCallback,
  agentName: string,
  options: EventPublisherOptions,
): PublisherSettings {
  if (typeof callback !== "function") throw new UserError("EventPublisher: callback must be a function.");
  const maxResultLen = options.maxResultLen ?? 16_000;
  const maxThreads = options.maxThreads ?? 1000;
  for (const [name, value] of [
    ["maxResultLen", maxResultLen],
    ["maxThreads", maxThreads],
  ] as const) {
    if (!Number.isInteger(value) || value < 1)
      throw new UserError(`EventPublisher: ${name} must be a positive integer, got ${value}.`);
  }
  const name = String(agentName);
  return {
    agentName: name,
    publish: safeCallback(callback, name, options.logger ?? defaultLogger),
    labels: { ...(options.toolLabels ?? {}) },
    group: options.streamGroup ?? "",
    title: options.streamTitle ?? "",
    isChatReply: options.isChatReply ?? false,
    maxResultLen,
    maxThreads,
    now: options.now ?? Date.now,
  };
}
