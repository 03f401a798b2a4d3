/**
 * Summarising the oldest part of a masked transcript into one message pair.
 *
 * @module
 */
import { toolResultText, type Message } from "../../agent/messages/messages.js";
import type { Model } from "../../agent/model.js";
import { estimateTokens } from "./transcript.js";

/** First line of the user message that carries a summary (how a summary pair is recognised). */
export const SUMMARY_HEADER = "[Summary of the earlier conversation]";
/** The assistant's half of a summary pair. */
export const SUMMARY_ACK = "Understood. I will continue from this summary.";

const SYSTEM_PROMPT =
  "You summarise the earlier part of a conversation between a person and an assistant that uses tools. " +
  "Write a short, factual summary: what the person asked for, what was decided, which tools were called " +
  "with which important arguments and what they found, and anything still open. No preamble.";

// Bounds the summarizer's input: one huge result must not make the summary call itself overflow.
const PART_LIMIT = 2000;

function clip(text: string): string {
  return text.length <= PART_LIMIT
    ? text
    : `${text.slice(0, PART_LIMIT)}… (${text.length - PART_LIMIT} more characters)`;
}

/** Renders messages as plain text for the summarizer. */
export function renderForSummary(messages: readonly Message[]): string {
  const lines: string[] = [];
  const names = new Map<string, string>();
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === "text") lines.push(`${m.role}: ${clip(b.text)}`);
      else if (b.type === "toolUse") {
        names.set(b.toolUseId, b.name);
        lines.push(`${m.role} called ${b.name}(${clip(JSON.stringify(b.input) ?? "")})`);
      } else if (b.type === "toolResult") {
        lines.push(
          `${b.status === "error" ? "error from" : "result of"} ${names.get(b.toolUseId) ?? "a tool"}: ${clip(toolResultText(b.content))}`,
        );
      } else if (b.type === "image" || b.type === "document")
        lines.push(`${m.role} attached ${b.type} ${b.name ?? b.mimeType}`);
    }
  }
  return lines.join("\n");
}

/**
 * Where to cut: the first index of the kept tail. A cut only falls on a user
 * message that holds no tool results (a new prompt), so no call is ever split
 * from its result. Keeps the longest tail within `budget` tokens, and at least
 * the last prompt's exchange; `undefined` when nothing older than a possible
 * head summary can be cut.
 */
export function summaryCut(messages: readonly Message[], budget: number): number | undefined {
  const first = hasSummaryHead(messages) ? 3 : 1;
  const cuts: number[] = [];
  for (let k = first; k < messages.length; k++) {
    const m = messages[k] as Message;
    if (m.role === "user" && !m.content.some((b) => b.type === "toolResult")) cuts.push(k);
  }
  if (cuts.length === 0) return undefined;
  for (const k of cuts) if (estimateTokens(messages.slice(k)) <= budget) return k;
  return cuts[cuts.length - 1];
}

/** Whether the transcript starts with a summary pair written by {@link summarizeHead}. */
export function hasSummaryHead(messages: readonly Message[]): boolean {
  const [u, a] = messages;
  const t = u?.content[0];
  return u?.role === "user" && t?.type === "text" && t.text.startsWith(SUMMARY_HEADER) && a?.role === "assistant";
}

/**
 * Collects a model's text answer.
 * @throws Error when the model fails or answers no text.
 */
export async function collectText(
  model: Model,
  messages: Message[],
  systemPrompt: string,
  signal?: AbortSignal,
): Promise<string> {
  let text = "";
  const options = signal === undefined ? { systemPrompt, toolSpecs: [] } : { systemPrompt, toolSpecs: [], signal };
  for await (const event of model.stream(messages, options)) {
    if (event.type === "contentBlockDelta" && event.delta.type === "text") text += event.delta.text;
  }
  text = text.trim();
  if (text === "") throw new Error("the summarizer answered no text");
  return text;
}

/**
 * Replaces the messages before the cut with one summary pair at the head (a
 * previous summary is folded into the new one).
 * @param messages - The masked transcript (not mutated).
 * @param budget - Tokens the kept tail should fit in.
 * @returns The summarised transcript, or `undefined` when there is nothing to cut.
 * @throws whatever the summarizer throws; the caller keeps the unsummarised transcript.
 */
export async function summarizeHead(
  messages: readonly Message[],
  budget: number,
  summarizer: Model,
  signal?: AbortSignal,
): Promise<Message[] | undefined> {
  const cut = summaryCut(messages, budget);
  if (cut === undefined) return undefined;
  const prompt = `Summarise this conversation so far:\n\n${renderForSummary(messages.slice(0, cut))}`;
  const summary = await collectText(
    summarizer,
    [{ role: "user", content: [{ type: "text", text: prompt }] }],
    SYSTEM_PROMPT,
    signal,
  );
  return [
    { role: "user", content: [{ type: "text", text: `${SUMMARY_HEADER}\n${summary}` }] },
    { role: "assistant", content: [{ type: "text", text: SUMMARY_ACK }] },
    ...messages.slice(cut),
  ];
}
