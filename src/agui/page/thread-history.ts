/**
 * The page's session store owns a thread's history the way the edge's thread store does: a run's
 * messages must continue the stored transcript (the rule of `../history.ts`), so a tab whose view
 * went stale, or a script that rewrites the messages, cannot overwrite the record.
 *
 * @module
 */
import type { RunAgentInput } from "@ag-ui/core";
import { SESSION_STATE_KEY, sessionPausedCallIds } from "../../agent/interrupts/session.js";
import { continueHistory, HistoryConflictError, type StoredHistory } from "../history.js";
import type { ThreadSnapshot } from "../../indexeddb/session-store.js";

/**
 * The messages a run goes on from, checked against the thread's record.
 *
 * A new turn must be the stored transcript as a prefix (cut short only where nothing but text is
 * dropped: regenerate, edit the last message), followed by user messages and results of
 * browser-tool calls the record holds open. A resume goes on from the stored transcript: the
 * messages the client sends with it are not read.
 *
 * @param input - The run's input (untrusted messages).
 * @param stored - The thread's record, or `undefined` for a new thread (then anything goes).
 * @returns The messages to run (the stored prefix as stored), or the refusal; nothing ran or was saved.
 */
export function checkedMessages(
  input: RunAgentInput,
  stored: ThreadSnapshot | undefined,
): RunAgentInput["messages"] | HistoryConflictError {
  const incoming = input.messages ?? [];
  if (!stored) return incoming;
  // A resume answers the stored pause and goes on from the stored transcript, whatever the client
  // shows (as at the edge): front ends such as CopilotKit send back their own view of the messages
  // with an answer, and refusing it would strand the person's approval.
  if (input.resume?.length) return stored.messages as RunAgentInput["messages"];
  const pausedCallIds = sessionPausedCallIds(stored.state[SESSION_STATE_KEY]);
  // Stored AG-UI messages are JSON (the store validated them).
  const messages = stored.messages as unknown as StoredHistory["messages"];
  try {
    return continueHistory({ messages, pausedCallIds }, incoming);
  } catch (error) {
    if (error instanceof HistoryConflictError) return error;
    throw error;
  }
}
