/**
 * Pure helpers of the EventPublisher that load with the page: tool labels, the task a grouped agent
 * was handed, and the callback wrapper that keeps a consumer's failure out of the run (what it
 * publishes of a run is in `lifecycle.ts`, which loads with its first event).
 *
 * @module
 */
import type { ContentBlock, Message } from "../../agent/messages/messages.js";
import type { Logger } from "../../logger.js";
import type { StreamEvent, StreamEventCallback } from "./types.js";

/**
 * Resolves a tool name to its display label: an exact entry wins, else the longest key that
 * prefixes the name (so `{ "github___": "GitHub" }` labels every `github___*` tool). An empty key
 * is no catch-all, as in the Python original.
 * @param toolName - The tool's name.
 * @param labels - Name or prefix → label.
 * @returns The label, or `null` when none applies.
 */
export function resolveToolLabel(toolName: string, labels: Readonly<Record<string, string>>): string | null {
  if (Object.hasOwn(labels, toolName)) return labels[toolName] ?? null;
  let best: string | null = null;
  let bestLength = 0;
  for (const prefix in labels) {
    if (prefix.length > bestLength && toolName.startsWith(prefix)) {
      best = labels[prefix] ?? null;
      bestLength = prefix.length;
    }
  }
  return best;
}

/**
 * The task an agent was handed, as one readable line for its activity card: the newest user
 * message that carries text and is not only tool results. A swarm node's context blob is reduced
 * to its `Handoff Message:` (else `User Request:`) section.
 * @param messages - The incoming messages, newest last.
 * @param maxLen - Longest task kept (longer ones end in `…`). Default 400.
 * @returns The task, or `null` when there is none.
 */
export function incomingTask(messages: readonly Message[] | undefined, maxLen = 400): string | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const blocks: readonly ContentBlock[] | undefined = m?.content;
    // Transcripts may come from a client: tolerate a message without a content array.
    if (m?.role !== "user" || !Array.isArray(blocks)) continue;
    if (blocks.some((b) => b.type === "toolResult")) continue;
    const text = blocks
      .flatMap((b) => (b.type === "text" && typeof b.text === "string" && b.text.trim() ? [b.text] : []))
      .join("\n")
      .trim();
    if (!text) continue;
    const task = pickTaskLine(text);
    return task.length <= maxLen ? task : `${task.slice(0, maxLen - 1).trimEnd()}…`;
  }
  return null;
}

function pickTaskLine(text: string): string {
  for (const label of ["Handoff Message:", "User Request:"]) {
    const at = text.indexOf(label);
    if (at < 0) continue;
    // A labelled section runs to the next blank line.
    const section = text
      .slice(at + label.length)
      .split("\n\n", 1)[0]
      ?.trim();
    if (section) return section;
  }
  return text.trim();
}

/**
 * Wraps a consumer callback so that a throw or a rejected promise is logged and never reaches the
 * run. (The Python wrapper re-raises unexpected exceptions; here a publishing failure must not
 * cost the person their run, whatever it is.)
 * @param callback - The consumer.
 * @param agentName - Named in the log entry.
 * @param logger - Where failures go.
 * @returns A callback that never throws.
 */
export function safeCallback(
  callback: StreamEventCallback,
  agentName: string,
  logger: Logger,
): (event: StreamEvent) => void {
  const report = (event: StreamEvent, error: unknown) => {
    try {
      logger.error("kaboo: EventPublisher callback failed; the event was dropped.", {
        hook: "EventPublisher",
        agentName,
        eventType: event.type,
        error,
      });
    } catch {
      // A broken logger must not break the run either.
    }
  };
  return function publishStreamEvent(event: StreamEvent): void {
    try {
      const out = callback(event);
      if (out !== undefined && out !== null && typeof (out as Promise<void>).then === "function") {
        (out as Promise<void>).then(undefined, (error: unknown) => report(event, error));
      }
    } catch (error) {
      report(event, error);
    }
  };
}
