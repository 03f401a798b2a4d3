/**
 * When a run hosted in its thread's Durable Object begins: once its response has taken RUN_STARTED.
 * The handler sends RUN_STARTED on its own, as soon as the request is known good, and the run reads
 * its thread, decides and writes its lease after: none of the run's work comes before the first
 * byte, and no write of the run holds RUN_STARTED behind the object's output gate (which holds every
 * byte sent after a write until the write is stored). A Stop or a reattach that comes between the
 * two waits until the run has decided (see {@link untilDecided}).
 *
 * @module
 */
import type { AGUIEvent, RunAgentInput } from "@ag-ui/core";
import { runStarted } from "../../run-events.js";
import { noteStarting } from "./live-runs.js";
import type { RunHub } from "./run-hub.js";

/**
 * How long a hosted run waits for its response to take RUN_STARTED before it begins anyway (a
 * reader that does not read must not hold the run: the run is the thread's, whoever reads): 20 ms.
 */
const FIRST_FRAME_WAIT_MS = 20;

/**
 * How long after its response took RUN_STARTED the run begins: 1 ms. The runtime has the bytes then,
 * but they leave in later turns of the event loop (on one machine the Worker that forwards them runs
 * on the same thread): work begun at once would hold them.
 */
const AFTER_FIRST_FRAME_MS = 1;

/**
 * Keeps the run's RUN_STARTED as its first event (the response sends it at once), and begins the
 * run {@link AFTER_FIRST_FRAME_MS} after the response's reader took it (or went away), or after
 * {@link FIRST_FRAME_WAIT_MS} without a read.
 *
 * @param o - The run's `hub` (RUN_STARTED is its event 0), its `input` and the handler's `store`.
 * @param begin - Starts the run's own events (once), given what to call once the run has decided.
 * @returns The response's first event (RUN_STARTED), and what its stream calls when its reader took
 *   it or went away.
 */
export function beginOnceStarted(
  o: { hub: RunHub; input: RunAgentInput; store: object },
  begin: (decided: () => void) => void,
): { first: AGUIEvent; onFirstRead: () => void } {
  const first = runStarted(o.input);
  o.hub.keep(first);
  let decided = () => {};
  noteStarting(o.store, o.input.threadId, new Promise<void>((resolve) => (decided = resolve)));
  let begun = false;
  const go = () => {
    if (begun) return;
    begun = true;
    clearTimeout(fallback);
    begin(decided);
  };
  const fallback = setTimeout(go, FIRST_FRAME_WAIT_MS);
  const onFirstRead = () => {
    if (!begun) setTimeout(go, AFTER_FIRST_FRAME_MS);
  };
  return { first, onFirstRead };
}
