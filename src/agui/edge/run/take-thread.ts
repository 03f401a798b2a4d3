/**
 * How a stored run takes its thread, in two steps: first it reads the thread and decides (refuse,
 * replay a recorded outcome, or run, by the run core's rules: `../../core/decide.ts`; who may answer
 * is the edge's own check) without writing anything, then, once RUN_STARTED has gone out,
 * it writes its lease with compare-and-set over the version it read. Between the two the run holds
 * the thread in this isolate's memory (its entry in {@link liveRuns}), so a second run here is
 * refused at once; a run in another isolate is stopped by the compare-and-set, and the run that
 * lost it decides again.
 *
 * @module
 */
import type { RunAgentInput } from "@ag-ui/core";
import type { KabooError } from "../../../errors.js";
import { pendingInterruptIds, sessionPausedCallIds } from "../../../agent/interrupts/session.js";
import {
  liveLease,
  type RecordedOutcome,
  type ThreadData,
  type ThreadLease,
  type ThreadRecord,
  type ThreadStore,
} from "../../../stores/thread-store.js";
import { type Answerer, type MayAnswer, whoAnswers } from "../trust/answerer.js";
import { ResumeInProgressError, ThreadBusyError } from "../errors.js";
import { decideRun } from "../../core/decide.js";
import { liveRuns } from "./live-runs.js";
import type { RunHub } from "./run-hub.js";
import { answersOf } from "../../core/spent-answers.js";

/** What {@link decideStoredRun} reads the thread for. */
export interface DecideOptions {
  store: ThreadStore;
  input: RunAgentInput;
  principal: string | undefined;
  mayAnswer?: MayAnswer | undefined;
  /** This run's events: its own hold in {@link liveRuns} is not another run's. */
  hub: RunHub;
  leaseMs: number;
  now: () => number;
}

/** A run that may take the thread: the record it read, and what it will write. */
export interface ToTake {
  /** The record as read (its version is the one the lease is written over). */
  read: ThreadRecord;
  /** The record to write: this run's lease, the owner. */
  data: ThreadData;
  /** The transcript the run goes on with (a new turn; a resume uses the stored one). */
  messages?: RunAgentInput["messages"];
  answerer: Answerer;
}

/** What a request does: be refused, replay a recorded outcome, or take the thread and run. */
export type Decision =
  | { refuse: KabooError }
  | { replay: RecordedOutcome; record: ThreadRecord; answerer: Answerer }
  | { take: ToTake };

/**
 * Reads the thread and decides what the request does. Writes nothing: a refused request leaves the
 * thread as it was, and one that will run writes its lease later ({@link writeLease}).
 *
 * @param o - See {@link DecideOptions}.
 * @returns The decision.
 */
export async function decideStoredRun(o: DecideOptions): Promise<Decision> {
  const { store, input, principal, now } = o;
  const resume = answersOf(input);
  const record = await store.load(input.threadId);
  // Checked first: a person who may not answer is refused before anything of the thread is used.
  const answerer = await whoAnswers(
    record,
    resume.map((r) => r.interruptId),
    principal,
    o.mayAnswer,
  );
  if (typeof answerer !== "string") return answerer;
  const decided = await decideRun(
    {
      history: { messages: record.messages, pausedCallIds: sessionPausedCallIds(record.session) },
      open: pendingInterruptIds(record.session),
      answered: record.answered,
      busy: liveLease(record, now()) || heldHere(o) ? busy(resume.length > 0) : undefined,
      ranRunId: () => ranRunId(o, record),
    },
    input,
  );
  if ("refuse" in decided) return decided;
  if ("replay" in decided) return { replay: decided.replay, record, answerer };
  const messages = resume.length === 0 ? decided.run.messages : undefined;
  const lease: ThreadLease = {
    token: crypto.randomUUID(),
    runId: input.runId,
    resume: resume.length > 0,
    expiresAt: 0,
  };
  // The run again of a run that was stopped and died before its safe point: it stays stopped.
  if (record.lease?.runId === input.runId && record.lease.cancel === true) lease.cancel = true;
  // A run again counts its attempts in the lease, so that one that died before its log named it is counted too.
  if (record.lease?.runId === input.runId) lease.attempt = (record.lease.attempt ?? 0) + 1;
  const data: ThreadData = { ...record, owner: record.owner ?? principal ?? null, lease, updatedAt: 0 };
  return { take: { read: record, data, answerer, ...(messages ? { messages } : {}) } };
}

/**
 * Writes the lease decided on, with compare-and-set over the version read.
 *
 * @param o - The store, the run's input, how long the lease lasts and the clock.
 * @param take - What {@link decideStoredRun} decided.
 * @param stopped - A Stop was accepted before the lease was written: the lease says so. Default `false`.
 * @returns The record as held (its version the written one), or `undefined` when the thread changed
 *   since it was read (decide again).
 */
export async function writeLease(
  o: Pick<DecideOptions, "store" | "input" | "leaseMs" | "now">,
  take: ToTake,
  stopped = false,
): Promise<ThreadRecord | undefined> {
  const at = o.now();
  const stop = stopped ? { cancel: true } : {};
  const lease = take.data.lease === null ? null : { ...take.data.lease, ...stop, expiresAt: at + o.leaseMs };
  const data: ThreadData = { ...take.data, lease, updatedAt: at };
  if (!(await o.store.compareAndSet(o.input.threadId, take.read.version, data))) return undefined;
  return { ...data, version: take.read.version + 1 };
}

/** Another run of the thread in this isolate that decided to take it and has not written its lease yet. */
function heldHere(o: DecideOptions): boolean {
  const here = liveRuns(o.store).get(o.input.threadId);
  return here?.taking === true && here.hub !== o.hub && !here.hub.ended;
}

/**
 * Whether the thread's event log already holds this run id (a second run under it would be logged as
 * the first, its writes dropped, and a reattach would show the first run). The run again of a dead run
 * (its hold ran out, under the same id) is not a reuse.
 */
async function ranRunId(o: DecideOptions, record: ThreadRecord): Promise<boolean> {
  const { store, input } = o;
  // A thread never written had no run, so its log holds none.
  if (!store.readEvents || record.version === 0 || record.lease?.runId === input.runId) return false;
  return (await store.readEvents(input.threadId, input.runId, Number.MAX_SAFE_INTEGER)) !== undefined;
}

/** The refusal of a request that comes while another run holds the thread. */
export function busy(resuming: boolean): KabooError {
  return resuming
    ? new ResumeInProgressError("Another request is answering this thread's interrupts now; this one ran nothing.")
    : new ThreadBusyError("Another run holds this thread now; try again when it ends.");
}
