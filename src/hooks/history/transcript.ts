/**
 * Stored transcripts: the zod schema a loaded transcript must match, the
 * toolUse/toolResult pairing check, and masking (which reuses the
 * ContextHook's clearing so a masked result reads the same in both places).
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { formatIssues } from "../../agent/tools/issues.js";
import { sizedString } from "../../agent/shared/lean-schemas.js";
import type { Agent } from "../../agent/agent.js";
import { jsonValueSchema } from "../../agent/interrupts/interrupt.js";
import type { Message } from "../../agent/messages/messages.js";
import { messageChars, transcriptChars } from "../../agent/messages/transcript-size.js";
import { ClearingCache, createClearingMemo, isClearedResult, type ClearingMemo } from "../context/clearing.js";

const media = {
  mimeType: sizedString(1),
  name: z.optional(z.string()),
  data: z.optional(z.string()),
  url: z.optional(z.string()),
};
const text = z.object({ type: z.literal("text"), text: z.string() });
const image = z.object({ type: z.literal("image"), ...media });
const document = z.object({ type: z.literal("document"), ...media });
const resultPart = z.discriminatedUnion("type", [
  text,
  z.object({ type: z.literal("json"), json: jsonValueSchema }),
  image,
  document,
]);
const block = z.discriminatedUnion("type", [
  text,
  image,
  document,
  z.object({
    type: z.literal("toolUse"),
    toolUseId: sizedString(1),
    name: z.string(),
    input: z.unknown(),
  }),
  z.object({
    type: z.literal("toolResult"),
    toolUseId: sizedString(1),
    status: z.literal(["success", "error"]),
    content: z.array(resultPart),
    structuredContent: z.optional(jsonValueSchema),
  }),
  z.object({
    type: z.literal("reasoning"),
    text: z.string(),
    signature: z.optional(z.string()),
    redacted: z.optional(z.string()),
  }),
]);

/** zod schema of a stored transcript: messages made of the runner's known block types. */
export const transcriptSchema = z.array(z.object({ role: z.literal(["user", "assistant"]), content: z.array(block) }));

/**
 * Why a transcript breaks the runner's invariant, or `undefined` when it holds:
 * every toolUse is answered in the very next (user) message, and every
 * toolResult answers a toolUse of the message just before it.
 */
export function pairingProblem(messages: readonly Message[]): string | undefined {
  let open = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message;
    const results = new Set<string>();
    for (const b of m.content) {
      if (b.type !== "toolResult") continue;
      if (m.role !== "user" || !open.has(b.toolUseId))
        return `message ${i} answers a call ${JSON.stringify(b.toolUseId)} the message before it did not make`;
      results.add(b.toolUseId);
    }
    for (const id of open) if (!results.has(id)) return `call ${JSON.stringify(id)} has no result in message ${i}`;
    open = new Set();
    for (const b of m.content) {
      if (b.type !== "toolUse") continue;
      if (m.role !== "assistant" || open.has(b.toolUseId))
        return `message ${i} has a misplaced or repeated call ${JSON.stringify(b.toolUseId)}`;
      open.add(b.toolUseId);
    }
  }
  if (open.size > 0) return `the last message has ${open.size} call(s) without results`;
  return undefined;
}

/** A stored transcript, checked: `{ ok: true, messages }` or why it was refused. */
export type LoadedTranscript = { ok: true; messages: Message[] } | { ok: false; why: string };

/**
 * Validates a stored transcript (untrusted) and returns a private copy of it.
 * @param raw - What the history exchange returned.
 */
export function loadTranscript(raw: unknown): LoadedTranscript {
  const parsed = transcriptSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, why: formatIssues(parsed.error.issues) };
  // zod rebuilt every object, so the copy shares nothing with the store.
  const messages = parsed.data as Message[];
  const problem = pairingProblem(messages);
  return problem === undefined ? { ok: true, messages } : { ok: false, why: problem };
}

// Recognising the ContextHook's placeholder keeps masking idempotent when minChars is below
// the placeholder's own length: a stored placeholder must not be wrapped in a placeholder of itself.
const isPlaceholder = isClearedResult;

/** How masking is configured (see `HistoryPolicy`). */
export interface MaskOptions {
  readonly minChars: number;
  readonly keepTools: ReadonlySet<string>;
}

/**
 * Masks every finished call: each result becomes the ContextHook's placeholder
 * unless it is shorter than `minChars`, of a kept tool, or of a delegate
 * (`tool.kind === "agent"` on `agent`). Blocks are replaced, never removed, so
 * toolUse/toolResult pairs stay whole. Never mutates `messages`.
 * @returns The masked messages (unchanged messages are the caller's objects).
 */
export function maskTranscript(
  messages: readonly Message[],
  agent: Agent,
  options: MaskOptions,
  memo: ClearingMemo = createClearingMemo(),
): Message[] {
  for (const m of messages) {
    for (const b of m.content) if (b.type === "toolResult" && isPlaceholder(b)) memo.placeholders.set(b, b);
  }
  // Trigger 0 with keepLast 0: every turn of results is old enough, and any input passes 0 tokens.
  const out = new ClearingCache(messageChars).rewrite(
    messages,
    0,
    agent,
    { trigger: 0, keepLast: 0, minChars: options.minChars, keepTools: options.keepTools },
    memo,
  );
  return out.messages;
}

/** Estimated tokens of a transcript: four JSON characters a token, as the ContextHook counts. */
export function estimateTokens(messages: readonly Message[]): number {
  // The runner's count of the same JSON, with each message's size cached (a summary cut tries many slices).
  return Math.ceil(transcriptChars(messages) / 4);
}
