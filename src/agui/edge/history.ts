/**
 * Server-owned history: with a thread store the stored transcript is the conversation. A new
 * turn's `messages` must be the stored transcript (same ids, same content) as a prefix, followed
 * only by new messages: user messages, and results of browser-tool calls the transcript holds
 * open. The prefix may stop short of the stored end (regenerate, edit the last message) only
 * where nothing but text is cut: a tool call that happened cannot be taken out of the record.
 *
 * System and developer messages are instructions, not history (they become the run's system
 * prompt and are never stored), so they are not compared. Everything else is refused with
 * `HISTORY_CONFLICT` before anything runs or is saved.
 *
 * @module
 */
import type { Message as AguiMessage } from "@ag-ui/core";
import { canonicalJson } from "../../agent/canonical-json.js";
import { sha256Hex } from "../../agent/sha256.js";
import type { JsonValue } from "../../agent/messages.js";
import { HistoryConflictError } from "./errors.js";

/** What a turn continues from: the stored transcript, and the call ids of the stored pause. */
export interface StoredHistory {
  messages: readonly JsonValue[];
  /** Calls of the paused batch: answered by a resume only, never by a tool message. */
  pausedCallIds: readonly string[];
}

type Loose = Record<string, unknown>;

/** A message as compared: tool-call arguments by their JSON value, not their spelling. */
function comparable(m: unknown): string {
  const msg = { ...(m as Loose) };
  if (Array.isArray(msg.toolCalls)) {
    msg.toolCalls = (msg.toolCalls as Loose[]).map((c) => {
      const fn = (c.function ?? {}) as Loose;
      return { id: c.id, name: fn.name, arguments: parsedArguments(fn.arguments) };
    });
  }
  return canonicalJson(msg);
}

function parsedArguments(text: unknown): unknown {
  if (typeof text !== "string") return text ?? null;
  try {
    return text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return text;
  }
}

const instructions = (m: AguiMessage) => m.role === "system" || m.role === "developer" || m.role === "activity";

/**
 * Checks a new turn's messages against the stored history.
 *
 * @param stored - The stored transcript and pause.
 * @param incoming - The turn's messages (validated AG-UI messages, untrusted content).
 * @returns The messages to run: the stored prefix as stored, the instructions, then the new messages.
 * @throws {HistoryConflictError} When the turn rewrites, drops or adds to the record.
 */
export function continueHistory(stored: StoredHistory, incoming: readonly AguiMessage[]): AguiMessage[] {
  const told = incoming.filter(instructions);
  const turn = incoming.filter((m) => !instructions(m));
  const record = stored.messages as readonly unknown[];
  let kept = 0;
  while (kept < record.length && kept < turn.length && comparable(turn[kept]) === comparable(record[kept])) kept++;
  checkCut(record.slice(kept) as Loose[], kept);
  const prefix = record.slice(0, kept) as Loose[];
  checkNew(prefix, turn.slice(kept), new Set(record.map((m) => (m as Loose).id)), stored.pausedCallIds);
  return [...told, ...(prefix as unknown as AguiMessage[]), ...turn.slice(kept)];
}

/**
 * The digest of a transcript as the seal of a stateless handler covers it: a SHA-256 chain over the
 * messages as compared (instructions left out), so any prefix's digest can be found in one pass.
 *
 * @param messages - AG-UI messages.
 * @returns The digest of each prefix, `[0]` being the empty one.
 */
export function transcriptDigests(messages: readonly unknown[]): string[] {
  const out = [""];
  for (const m of messages) {
    if (instructions(m as AguiMessage)) continue;
    out.push(sha256Hex(`${out.at(-1)}\n${comparable(m)}`));
  }
  return out;
}

/**
 * Whether a turn claims history: it holds a message only the server writes (an assistant message,
 * a tool result), which without a store only a seal can vouch for.
 *
 * @param incoming - The turn's messages.
 * @returns `true` when any message is neither an instruction nor the person's.
 */
export function claimsHistory(incoming: readonly AguiMessage[]): boolean {
  return incoming.some((m) => !instructions(m) && m.role !== "user");
}

/**
 * The stateless rule: the turn's messages must begin with the transcript whose digest was sealed,
 * followed only by new messages (a resume: nothing new at all).
 *
 * @param sealed - The digest the seal covers.
 * @param pausedCallIds - Calls of the sealed pause.
 * @param incoming - The turn's messages.
 * @param resuming - Whether the turn answers the pause.
 * @throws {HistoryConflictError} When the messages do not continue the sealed transcript.
 */
export function continueSealed(
  sealed: string,
  pausedCallIds: readonly string[],
  incoming: readonly AguiMessage[],
  resuming: boolean,
): void {
  const turn = incoming.filter((m) => !instructions(m));
  const digests = transcriptDigests(turn);
  const kept = digests.indexOf(sealed);
  if (kept < 0 || (resuming && kept !== turn.length))
    throw conflict("they are not the transcript this handler sealed with the session, followed by new messages");
  checkNew(
    turn.slice(0, kept) as unknown as Loose[],
    turn.slice(kept),
    new Set(turn.slice(0, kept).map((m) => m.id)),
    pausedCallIds,
  );
}

/** A cut may drop text only: never a tool call or result that is in the record. */
function checkCut(cut: readonly Loose[], kept: number): void {
  if (cut.some((m) => m.role === "tool" || (Array.isArray(m.toolCalls) && m.toolCalls.length > 0))) {
    const at = typeof cut[0]?.id === "string" ? cut[0].id : String(kept);
    throw new HistoryConflictError(
      `The messages leave out or change stored message ${JSON.stringify(at)}, and what follows it holds tool calls: ` +
        "the thread's record cannot be rewritten. Send the stored transcript (MESSAGES_SNAPSHOT) followed by new messages.",
    );
  }
}

/** The messages after the kept prefix: new user messages, and results of browser-tool calls held open. */
function checkNew(
  prefix: readonly Loose[],
  added: readonly AguiMessage[],
  known: Set<unknown>,
  paused: readonly string[],
): void {
  const open = openCalls(prefix, paused);
  for (const m of added) {
    if (known.has(m.id))
      throw conflict(`message ${JSON.stringify(m.id)} is stored with other content or in another place`);
    // One id, one message: a client that shows messages by id would show one where the model read two.
    known.add(m.id);
    if (m.role === "user") continue;
    if (m.role === "tool" && open.delete(m.toolCallId)) continue;
    throw conflict(
      m.role === "tool"
        ? `the tool result ${JSON.stringify(m.id)} answers no browser-tool call the thread holds open`
        : `a new ${m.role} message (${JSON.stringify(m.id)}) can only come from the server`,
    );
  }
}

/** Calls of assistant messages in `prefix` without a result, other than the stored pause's. */
function openCalls(prefix: readonly Loose[], paused: readonly string[]): Set<string> {
  const open = new Set<string>();
  for (const m of prefix) {
    if (Array.isArray(m.toolCalls))
      for (const c of m.toolCalls as Loose[]) if (typeof c.id === "string") open.add(c.id);
    if (m.role === "tool" && typeof m.toolCallId === "string") open.delete(m.toolCallId);
  }
  for (const id of paused) open.delete(id);
  return open;
}

function conflict(what: string): HistoryConflictError {
  return new HistoryConflictError(`The turn's messages do not continue the thread's record: ${what}.`);
}
