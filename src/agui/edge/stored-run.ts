/**
 * A run of the edge handler over a {@link ThreadStore}: the store, not the client, decides what
 * a resume may answer and what runs. The run first takes the thread (a lease written with
 * compare-and-set, so of two racing requests one wins), answers a replay from the record, runs
 * the agent on the stored session and transcript, and saves the outcome before RUN_FINISHED.
 *
 * @module
 */
import {
  EventType,
  type AGUIEvent,
  type Message as AguiMessage,
  type RunAgentInput,
  type RunFinishedOutcome,
} from "@ag-ui/core";
import type { JsonObject, JsonValue } from "../../agent/messages.js";
import { type KabooError, UnknownInterruptIdError, describe } from "../../errors.js";
import type { Logger } from "../../logger.js";
import {
  boundAnswered,
  liveLease,
  type RecordedOutcome,
  type ThreadData,
  type ThreadLease,
  type ThreadRecord,
  type ThreadStore,
} from "../../stores/thread-store.js";
import { StoreBusyError } from "../../stores/busy.js";
import {
  HistoryConflictError,
  ResumeInProgressError,
  RunIdReusedError,
  ThreadBusyError,
  ThreadConflictError,
} from "./errors.js";
import { type Answerer, type MayAnswer, whoAnswers } from "./answerer.js";
import { pendingInterruptIds, SESSION_STATE_KEY, sessionPausedCallIds } from "../../agent/session.js";
import { DEFAULT_EVENT_LOG_RETENTION_MS, EventLogWriter } from "./event-log.js";
import { continueHistory } from "./history.js";
import { messagesSnapshot, runError, runFinished, runStarted, stateSnapshot } from "../run-events.js";
import { lingerThenDrop, liveRuns } from "./live-runs.js";
import type { RunHub } from "./run-hub.js";
import type { SafeStop } from "./safe-stop.js";
import { DEFAULT_RUN_LEASE_MS, ThreadHold } from "./thread-hold.js";
import { isObject } from "../../agent/guards.js";

/** Options of {@link storedRun}. */
export interface StoredRunOptions {
  store: ThreadStore;
  /** The validated input; its `kaboo_session` and, on a resume, its messages are not used. */
  input: RunAgentInput;
  /** The person the run serves; a thread belongs to the first principal that ran it. */
  principal: string | undefined;
  /** Whether a person who does not own the thread may answer one of its questions (the agent's gates). */
  mayAnswer?: MayAnswer | undefined;
  /** Told, before the first event, that the sender is an approver (their response shows less). */
  onApprover?: (() => void) | undefined;
  /** Runs the agent on the input the store decided (its calls claimed in `store.ledger(threadId)`). */
  run: (input: RunAgentInput, o?: { requester?: string }) => AsyncGenerator<AGUIEvent>;
  /** The run's Stop: found by a cancel request while the run is live. */
  stop: SafeStop;
  /** The run's events as they happen: found by a client that reattaches. */
  hub: RunHub;
  log: Logger;
  /** How long a finished run's events stay in the thread's event log. Default {@link DEFAULT_EVENT_LOG_RETENTION_MS}. */
  eventLogRetentionMs?: number | undefined;
  /** How long the run's hold lasts without renewal. Default {@link DEFAULT_RUN_LEASE_MS}. */
  leaseMs?: number | undefined;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: (() => number) | undefined;
}

type Decision = { refuse: KabooError } | { replay: RecordedOutcome } | { proceed: true };

/**
 * The run's events, decided and recorded by the thread store. The run is the thread's, not the
 * request's: it holds the thread (renewing its lease) until it ends or pauses, whoever reads.
 *
 * @param o - See {@link StoredRunOptions}.
 * @returns AG-UI events: the run's own, a recorded outcome (replay), or RUN_STARTED + RUN_ERROR.
 */
export async function* storedRun(o: StoredRunOptions): AsyncGenerator<AGUIEvent> {
  const now = o.now ?? Date.now;
  const leaseMs = o.leaseMs ?? DEFAULT_RUN_LEASE_MS;
  let taken: Awaited<ReturnType<typeof takeThread>>;
  try {
    taken = await takeThread(o, leaseMs, now);
  } catch (error) {
    // Storage that stayed busy took nothing: the thread is free, and the client may simply retry.
    if (error instanceof StoreBusyError) return yield* refused(o.input, error);
    throw error;
  }
  if ("refuse" in taken) return yield* refused(o.input, taken.refuse);
  if (taken.answerer === "approver") o.onApprover?.();
  if ("replay" in taken) return yield* replayed(o.input, taken.record, taken.replay);
  yield* heldRun(o, taken, leaseMs, now);
}

/** The thread as this run took it: its record (lease written), and the transcript to run on. */
interface Taken {
  record: ThreadRecord;
  messages?: RunAgentInput["messages"];
  answerer: Answerer;
}

/** What the run's snapshots said so far (what the store saves when it ends). */
interface RunOutput {
  state?: JsonObject;
  messages?: JsonValue[];
}

/**
 * The run on a thread it holds: live (a cancel or a reattach finds it), its events logged, and its
 * outcome saved before RUN_FINISHED goes out; whatever ends it, the thread is let go.
 */
async function* heldRun(
  o: StoredRunOptions,
  taken: Taken,
  leaseMs: number,
  now: () => number,
): AsyncGenerator<AGUIEvent> {
  const { store, input, log } = o;
  const { threadId, runId } = input;
  const held = taken.record;
  const hold = new ThreadHold({ store, threadId, record: held, leaseMs, now, log, onCancel: () => o.stop.request() });
  const live = liveRuns(store);
  if (store.appendEvents) logEvents(o, now());
  live.set(threadId, {
    runId,
    token: held.lease?.token ?? "",
    principal: held.owner ?? undefined,
    stop: o.stop,
    hub: o.hub,
  });
  const { runInput, requester } = inputOnThread(o, taken);
  const by = o.principal === undefined ? {} : { by: o.principal };
  const out: RunOutput = {};
  let ended = false;
  try {
    for await (const event of o.run(runInput, requester)) {
      if (event.type === EventType.STATE_SNAPSHOT) out.state = event.snapshot as JsonObject;
      if (event.type === EventType.MESSAGES_SNAPSHOT) out.messages = event.messages as JsonValue[];
      if (event.type === EventType.RUN_FINISHED) {
        ended = true;
        const outcome = (event.outcome ?? { type: "success" }) as JsonObject;
        if (!(await hold.end(finishedRecord(held, out, input, { outcome, ...by }, now)))) {
          yield runError(
            new ThreadConflictError("The thread changed while this run held it (its hold ran out); nothing was saved."),
          );
          return;
        }
      }
      if (event.type === EventType.RUN_ERROR) {
        ended = true;
        // What the failed run kept (calls that finished, a spent pause) is saved: a retry must not
        // resume the stored pause again and run its finished calls with another answer.
        const kept =
          out.state || out.messages ? { ...sessionAndState(out), messages: out.messages ?? held.messages } : {};
        await releaseThread(hold, threadId, { ...held, ...kept }, now(), log);
      }
      yield event;
    }
  } finally {
    if (!ended) await releaseThread(hold, threadId, held, now(), log);
    lingerThenDrop(live, threadId, runId);
  }
}

/**
 * The input the agent runs on: the stored session, and on a resume the stored transcript (what the
 * client shows cannot change what was asked). An approver who does not own the thread answers its
 * four-eyes question and nothing else: the run goes on with the thread's stored state, and without
 * that person's tools, context and grants.
 */
function inputOnThread(
  o: StoredRunOptions,
  taken: Taken,
): { runInput: RunAgentInput; requester?: { requester: string } } {
  const { input } = o;
  const held = taken.record;
  const approver = taken.answerer === "approver";
  // The owner's state is the handler's own parse of the body, used in place (a copy of a wide state
  // is a cost a client could buy); the stored state is copied, as the record is the store's.
  const own = isObject(input.state) ? input.state : {};
  const state: Record<string, unknown> = approver ? { ...held.state } : own;
  if (held.session) state[SESSION_STATE_KEY] = held.session;
  else delete state[SESSION_STATE_KEY];
  const resume = input.resume ?? [];
  const messages = resume.length ? (held.messages as RunAgentInput["messages"]) : (taken.messages ?? input.messages);
  const asked = approver ? { ...input, tools: [], context: [], forwardedProps: {} } : input;
  const runInput = { ...asked, state, messages };
  return approver && held.owner !== null ? { runInput, requester: { requester: held.owner } } : { runInput };
}

/** The thread's record after the run finished: its session, state and transcript, and the answers it spent. */
function finishedRecord(
  held: ThreadRecord,
  out: RunOutput,
  input: RunAgentInput,
  answer: { outcome: JsonObject; by?: string },
  now: () => number,
): ThreadData {
  const answered = { ...held.answered };
  for (const r of input.resume ?? []) answered[r.interruptId] = { runId: input.runId, ...answer, at: now() };
  return {
    ...held,
    ...sessionAndState(out),
    messages: out.messages ?? held.messages,
    answered: boundAnswered(answered),
    lease: null,
    updatedAt: now(),
  };
}

function sessionAndState(out: RunOutput): Partial<Pick<ThreadData, "session" | "state">> {
  return out.state ? splitSession(out.state) : {};
}

/** Sends the run's events to its thread's log, and drops the logs of runs that ended long ago. */
function logEvents(o: StoredRunOptions, now: number): void {
  const { store, input, log } = o;
  const writer = new EventLogWriter({ store, threadId: input.threadId, runId: input.runId, log });
  o.hub.attach((e) => writer.add(e));
  store
    .compactEvents?.(input.threadId, now - (o.eventLogRetentionMs ?? DEFAULT_EVENT_LOG_RETENTION_MS))
    .catch((error) => {
      log.warn("kaboo: could not compact a thread's event log", { threadId: input.threadId, error: describe(error) });
    });
}

/**
 * Takes the thread for this run: a lease written with compare-and-set over the version read, so
 * of two racing requests one wins (the other reads the lease on its next try).
 * @returns The record as held (lease written), a refusal, or the recorded outcome to replay.
 */
async function takeThread(
  o: StoredRunOptions,
  leaseMs: number,
  now: () => number,
): Promise<Taken | { refuse: KabooError } | { replay: RecordedOutcome; record: ThreadRecord; answerer: Answerer }> {
  const { store, input, principal } = o;
  const resume = input.resume ?? [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const record = await store.load(input.threadId);
    // Checked first: a person who may not answer is refused before anything of the thread is used.
    const answerer = await whoAnswers(
      record,
      resume.map((r) => r.interruptId),
      principal,
      o.mayAnswer,
    );
    if (typeof answerer !== "string") return answerer;
    const decision = decide(record, resume, now());
    if ("refuse" in decision) return decision;
    if ("replay" in decision) return { replay: decision.replay, record, answerer };
    const reused = await reusedRunId(o, record);
    if (reused) return { refuse: reused };
    let messages: RunAgentInput["messages"] | undefined;
    if (resume.length === 0) {
      // Checked before the thread is taken: a refused turn leaves the record as it was.
      try {
        messages = continueHistory(
          { messages: record.messages, pausedCallIds: sessionPausedCallIds(record.session) },
          input.messages,
        );
      } catch (error) {
        if (error instanceof HistoryConflictError) return { refuse: error };
        throw error;
      }
    }
    const lease: ThreadLease = {
      token: crypto.randomUUID(),
      runId: input.runId,
      resume: resume.length > 0,
      expiresAt: now() + leaseMs,
    };
    const data: ThreadData = { ...record, owner: record.owner ?? principal ?? null, lease, updatedAt: now() };
    if (await store.compareAndSet(input.threadId, record.version, data))
      return { record: { ...data, version: record.version + 1 }, answerer, ...(messages ? { messages } : {}) };
  }
  return { refuse: busy(resume.length > 0) };
}

/**
 * A run id the thread's event log already holds: a second run under it would be logged as the
 * first (its writes dropped) and a reattach would show the first run. The run of a dead run again
 * (its hold ran out, under the same id) is not a reuse.
 */
async function reusedRunId(o: StoredRunOptions, record: ThreadRecord): Promise<RunIdReusedError | undefined> {
  const { store, input } = o;
  if (!store.readEvents || record.lease?.runId === input.runId) return undefined;
  if ((await store.readEvents(input.threadId, input.runId, Number.MAX_SAFE_INTEGER)) === undefined) return undefined;
  return new RunIdReusedError(`This thread already had a run ${JSON.stringify(input.runId)}; send a new run id.`);
}

/** What a request the sender may make does: replay a recorded outcome, wait, refuse, or run. */
function decide(record: ThreadRecord, resume: readonly { interruptId: string }[], now: number): Decision {
  // Own keys only: an id such as "constructor" must not read Object.prototype as a recorded outcome.
  const answered = resume
    .map((r) => (Object.hasOwn(record.answered, r.interruptId) ? record.answered[r.interruptId] : undefined))
    .find((a) => a !== undefined);
  if (answered) return { replay: answered };
  if (liveLease(record, now)) return { refuse: busy(resume.length > 0) };
  if (resume.length === 0) return { proceed: true };
  const pending = pendingInterruptIds(record.session);
  const unknown = resume.find((r) => !pending.includes(r.interruptId));
  return unknown ? { refuse: new UnknownInterruptIdError(unknown.interruptId, pending) } : { proceed: true };
}

function busy(resuming: boolean): KabooError {
  return resuming
    ? new ResumeInProgressError("Another request is answering this thread's interrupts now; this one ran nothing.")
    : new ThreadBusyError("Another run holds this thread now; try again when it ends.");
}

function splitSession(snapshot: JsonObject): Pick<ThreadData, "session" | "state"> {
  const { [SESSION_STATE_KEY]: session, ...state } = snapshot;
  return { session: isObject(session) ? (session as JsonObject) : null, state };
}

async function releaseThread(
  hold: ThreadHold,
  threadId: string,
  held: ThreadData,
  now: number,
  log: Logger,
): Promise<void> {
  try {
    await hold.end({ ...held, lease: null, updatedAt: now });
  } catch (error) {
    // The lease runs out on its own; the thread is blocked until then, never corrupted.
    log.error("kaboo: could not release a thread after its run", { threadId, error: describe(error) });
  }
}

async function* refused(input: RunAgentInput, error: KabooError): AsyncGenerator<AGUIEvent> {
  yield runStarted(input);
  yield runError(error);
}

/** The recorded outcome of the run that answered these interrupts; nothing runs. */
async function* replayed(
  input: RunAgentInput,
  record: ThreadRecord,
  answered: RecordedOutcome,
): AsyncGenerator<AGUIEvent> {
  yield runStarted(input);
  const snapshot: Record<string, unknown> = { ...record.state };
  if (record.session) snapshot[SESSION_STATE_KEY] = record.session;
  yield stateSnapshot(snapshot);
  // The record keeps the messages of the run's own MESSAGES_SNAPSHOT.
  yield messagesSnapshot(record.messages as AguiMessage[]);
  yield runFinished(input, answered.outcome as RunFinishedOutcome);
}
