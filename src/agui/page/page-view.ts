/**
 * What the page knows of a thread when a run is asked for, read from its session store, for the run
 * core's decision (`../core/decide.ts`): the stored transcript owns the history as the edge's thread
 * record does (a tab whose view went stale, or a script that rewrites the messages, cannot overwrite
 * it), the stored run's open questions are the only ones a resume may answer, and an unfinished run
 * (its page went away) holds the thread until `connectAgent()` continues it.
 *
 * @module
 */
import { SESSION_STATE_KEY, sessionPausedCallIds } from "../../agent/interrupts/session.js";
import type { ThreadView } from "../core/decide.js";
import type { StoredHistory } from "../core/history.js";
import type { ThreadSnapshot } from "../../indexeddb/session-store.js";
import { RunInProgressError } from "./errors.js";

/**
 * The thread as the page's session store holds it.
 *
 * @param stored - The thread's stored snapshot, or `undefined` for a thread this page never saved (then
 *   the request's messages are taken as sent, and any answer goes to the runner).
 * @returns The view the run core decides on. It records no outcomes: a resume of questions the thread
 *   no longer has open is stale.
 */
export function pageView(stored: ThreadSnapshot | undefined): ThreadView {
  if (!stored) return {};
  const pausedCallIds = sessionPausedCallIds(stored.state[SESSION_STATE_KEY]);
  // Stored AG-UI messages are JSON (the store validated them).
  const history: StoredHistory = { messages: stored.messages as unknown as StoredHistory["messages"], pausedCallIds };
  return {
    history,
    // Without a stored run there are no questions to check answers against (as before any run).
    open: stored.run ? stored.interrupts.map((i) => i.id) : undefined,
    busy:
      stored.run?.status === "running"
        ? new RunInProgressError("This thread has an unfinished run (its page went away); connectAgent() continues it.")
        : undefined,
  };
}
