/**
 * Store-owned history: with a thread store (the edge) or a session store (the page) the stored
 * transcript is the conversation. A new turn's `messages` must be the stored transcript (same ids,
 * same content; the results of one batch of calls in any order) as a prefix, followed only by new
 * messages: user messages, and results of browser-tool calls the transcript holds open. The prefix
 * may stop short of the stored end (regenerate, edit the last message) only where nothing but text
 * is cut: a tool call that happened cannot be taken out of the record.
 *
 * System and developer messages are instructions, not history (they become the run's system
 * prompt and are never stored), so they are not compared. Everything else is refused with
 * `HISTORY_CONFLICT` before anything runs or is saved.
 *
 * @module
 */
import type { Message as AguiMessage } from "@ag-ui/core";
import { canonicalJson } from "../../agent/shared/canonical-json.js";
import type { JsonValue } from "../../agent/messages/messages.js";
import { KabooError } from "../../errors.js";

/** A new turn's messages do not continue the thread's stored transcript (rewritten, dropped or injected history). */
export class HistoryConflictError extends KabooError {
  readonly code = "HISTORY_CONFLICT" as const;
}

/** What a turn continues from: the stored transcript, and the call ids of the stored pause. */
export interface StoredHistory {
  messages: readonly JsonValue[];
  /** Calls of the paused batch: answered by a resume only, never by a tool message. */
  pausedCallIds: readonly string[];
}

type Loose = Record<string, unknown>;

/**
 * A message as compared: tool-call arguments by their JSON value, not their spelling.
 * @param m - An AG-UI message (stored or sent).
 * @returns Its canonical JSON.
 */
export function comparable(m: unknown): string {
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

/**
 * Whether a message is an instruction (system, developer, activity), not history: never stored nor compared.
 * @param m - An AG-UI message.
 * @returns `true` for an instruction.
 */
export const instructions = (m: AguiMessage): boolean =>
  m.role === "system" || m.role === "developer" || m.role === "activity";

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
  const kept = keptPrefix(record, turn);
  checkCut(record.slice(kept) as Loose[], kept);
  const prefix = record.slice(0, kept) as Loose[];
  checkNew(prefix, turn.slice(kept), new Set(record.map((m) => (m as Loose).id)), stored.pausedCallIds);
  return [...told, ...(prefix as unknown as AguiMessage[]), ...turn.slice(kept)];
}

/**
 * How many of the record's messages the turn keeps, in order, except that the results of one batch
 * of calls (a run of tool messages) may come in any order: a client lists each result as it
 * arrives, so a call denied at once reads before one approved in the same batch that ran after it,
 * while the record keeps the calls' order.
 */
function keptPrefix(record: readonly unknown[], turn: readonly unknown[]): number {
  let kept = 0;
  while (kept < record.length && kept < turn.length) {
    const batch = toolRun(record, kept);
    if (batch > 1 && sameMessages(record.slice(kept, kept + batch), turn.slice(kept, kept + batch))) {
      kept += batch;
      continue;
    }
    if (comparable(turn[kept]) !== comparable(record[kept])) break;
    kept++;
  }
  return kept;
}

/** How many tool messages follow one another from `at`. */
function toolRun(messages: readonly unknown[], at: number): number {
  let end = at;
  while (end < messages.length && (messages[end] as Loose).role === "tool") end++;
  return end - at;
}

/** Whether two lists hold the same messages, in any order. */
function sameMessages(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  const sorted = (list: readonly unknown[]) => list.map(comparable).sort().join("\n");
  return sorted(a) === sorted(b);
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

/**
 * The messages after the kept prefix: new user messages, and results of browser-tool calls held open.
 * @param prefix - The stored messages the turn keeps.
 * @param added - The turn's messages after them.
 * @param known - Ids of the stored messages (a new message may not reuse one; the ids of `added` join it).
 * @param paused - Calls of the stored pause (answered by a resume only).
 * @throws {HistoryConflictError} For any other message.
 */
export function checkNew(
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

/**
 * @param what - What is wrong, in words.
 * @returns The error a turn that does not continue the record is refused with.
 */
export function conflict(what: string): HistoryConflictError {
  return new HistoryConflictError(`The turn's messages do not continue the thread's record: ${what}.`);
}
