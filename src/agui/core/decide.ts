/**
 * The one decision every host makes when a request for a run arrives, before anything runs or is
 * saved: refuse it, answer it with the recorded outcome of the run that already acted on its answers
 * (a replay), or run it, and from which messages. The page (`KabooAgent`, over its session store and
 * Web Locks) and the edge (`createAguiHandler`, over a thread store and its leases) each read their
 * own storage into a {@link ThreadView} and ask {@link decideRun}; the rules are written here once:
 *
 * 1. **Spent answers replay.** A resume whose answers a run already acted on gets that run's recorded
 *    outcome, whoever holds the thread now: running them again would run approved calls twice.
 * 2. **One run at a time.** While another run holds the thread, the request is refused with the
 *    host's own words (a tab's lock, a lease, an unfinished run).
 * 3. **Only open questions are answered.** A resume that answers none of the questions the thread
 *    has open, where the host records no outcome to replay, comes from a view the thread moved past
 *    (`STALE_THREAD`); any other answer to a question the thread does not have open is
 *    `UNKNOWN_INTERRUPT_ID`.
 * 4. **A run id names one run.** A new request under a run id the thread already ran is refused.
 * 5. **The stored transcript is the history.** A resume goes on from it, whatever the client shows;
 *    a new turn must continue it (`HISTORY_CONFLICT` otherwise; see `./history.ts`).
 *
 * What stays with each host is only what its transport needs: who may answer (principals, at the
 * edge), how it takes the thread (a lock, a lease written by compare-and-set) and how it tells the
 * client.
 *
 * @module
 */
import type { RunAgentInput } from "@ag-ui/core";
import { KabooError, UnknownInterruptIdError } from "../../errors.js";
import type { RecordedOutcome } from "../../stores/thread-store.js";
import { continueHistory, HistoryConflictError, type StoredHistory } from "./history.js";
import { answersOf, spentInRecord } from "./spent-answers.js";

/** The run answers questions the thread no longer has open (its view is out of date); nothing ran. */
export class StaleThreadError extends KabooError {
  readonly code = "STALE_THREAD" as const;
}

/** A new request under a run id the thread already ran: it would be logged and reattached as that run. */
export class RunIdReusedError extends KabooError {
  readonly code = "RUN_ID_REUSED" as const;
}

/** What a host knows of a thread when a request for a run arrives, read from its own storage. */
export interface ThreadView {
  /**
   * The stored transcript and the calls of its pause. `undefined` where the host keeps no record of the
   * thread (a page without a session store, a thread never run there): the request's messages are taken as sent.
   */
  history?: StoredHistory | undefined;
  /** The ids of the questions the thread has open. `undefined` where the host cannot know them. */
  open?: readonly string[] | undefined;
  /**
   * The recorded outcomes of runs that answered questions, by interrupt id (the edge's thread record).
   * `undefined` where the host records none (the page), which makes a resume of a moved-past view stale.
   */
  answered?: Readonly<Record<string, RecordedOutcome>> | undefined;
  /** The refusal, in the host's words, when another run holds the thread now; `undefined` when it is free. */
  busy?: KabooError | undefined;
  /** Whether the thread already ran a run under this run id (asked only of a request that would run). */
  ranRunId?: (() => Promise<boolean>) | undefined;
}

/** What a request does. */
export type RunDecision =
  | { refuse: KabooError }
  | { replay: RecordedOutcome }
  | {
      /** The messages the run goes on from: the stored transcript for a resume, the checked turn otherwise. */
      run: { messages: RunAgentInput["messages"] };
    };

/**
 * Decides what a request for a run does (see the module's rules). Writes nothing.
 *
 * @param view - What the host read of the thread.
 * @param input - The run's input (its messages untrusted).
 * @returns Refuse, replay or run.
 */
export async function decideRun(view: ThreadView, input: RunAgentInput): Promise<RunDecision> {
  const answers = answersOf(input);
  const recorded = view.answered ? spentInRecord({ answered: view.answered as RecordedOutcomes }, answers) : undefined;
  if (recorded) return { replay: recorded };
  if (view.busy) return { refuse: view.busy };
  const unanswerable = notOpen(view, answers);
  if (unanswerable) return { refuse: unanswerable };
  if (view.ranRunId && (await view.ranRunId()))
    return {
      refuse: new RunIdReusedError(`This thread already had a run ${JSON.stringify(input.runId)}; send a new run id.`),
    };
  const incoming = input.messages ?? [];
  if (!view.history) return { run: { messages: incoming } };
  if (answers.length) return { run: { messages: view.history.messages as RunAgentInput["messages"] } };
  try {
    return { run: { messages: continueHistory(view.history, incoming) } };
  } catch (error) {
    if (error instanceof HistoryConflictError) return { refuse: error };
    throw error;
  }
}

type RecordedOutcomes = Record<string, RecordedOutcome>;

/** The refusal of answers to questions the thread does not have open, if any. */
function notOpen(view: ThreadView, answers: readonly { interruptId: string }[]): KabooError | undefined {
  if (!view.open || answers.length === 0) return undefined;
  const open = new Set(view.open);
  const unknown = answers.filter((a) => !open.has(a.interruptId));
  if (unknown.length === 0) return undefined;
  if (view.answered === undefined && unknown.length === answers.length)
    return new StaleThreadError(
      "This tab's view of the thread is out of date (it went on elsewhere); connectAgent() shows it as it is.",
    );
  return new UnknownInterruptIdError(unknown[0]?.interruptId ?? "", [...view.open]);
}
