/**
 * A run of the edge handler over a {@link ThreadStore}: the store, not the client, decides what
 * a resume may answer and what runs. The run reads the thread and decides (refuse, replay, run),
 * sends RUN_STARTED, then takes the thread (a lease written with compare-and-set, so of two racing
 * requests one wins; see take-thread.ts), runs the agent on the stored session and transcript, and
 * saves the outcome before RUN_FINISHED.
 *
 * In a hosting Durable Object RUN_STARTED goes out before the run begins: the handler's response
 * sends it, and the run reads its thread once the response has taken it (see `createAguiHandler`),
 * so that the first byte waits neither for the run's work nor for the object's output gate. It says
 * only that the request was received: a refusal starts with it too. Everything the run does after
 * it (its model's and its tools' fetches, its ledger claims, its events in the thread's log) comes
 * after the lease, so a run whose lease was never written (the object died first) has done nothing,
 * and the store knows nothing of it. With any other store RUN_STARTED follows the lease (a reattach
 * in another isolate finds the run).
 *
 * @module
 */
import { EventType, type AGUIEvent, type RunAgentInput } from "@ag-ui/core";
import type { JsonObject, JsonValue } from "../../../agent/messages/messages.js";
import { type KabooError, describe } from "../../../errors.js";
import type { Logger } from "../../../logger.js";
import type { LedgerHolder, ThreadData, ThreadRecord, ThreadStore } from "../../../stores/thread-store.js";
import { StoreBusyError } from "../../../stores/busy.js";
import type { HostedRunHooks } from "../../../stores/hosted-request.js";
import { ThreadConflictError } from "../errors.js";
import type { MayAnswer } from "../trust/answerer.js";
import { DEFAULT_EVENT_LOG_RETENTION_MS, EventLogWriter } from "./event-log.js";
import { type DeadAttempt, deadAttempt } from "./dead-attempt.js";
import { runError, runStarted } from "../../run-events.js";
import { type LiveRun, lingerThenDrop, liveRuns } from "./live-runs.js";
import type { RunHub } from "./run-hub.js";
import type { SafeStop } from "./safe-stop.js";
import { DEFAULT_RUN_LEASE_MS, ThreadHold } from "./thread-hold.js";
import { busy, type Decision, type DecideOptions, decideStoredRun, type ToTake, writeLease } from "./take-thread.js";
import { finishedRecord, inputOnThread, replayed, type RunOutput, sessionAndState } from "./thread-record.js";
import { isResume } from "../../core/spent-answers.js";

/** Options of {@link storedRun}. */
export interface StoredRunOptions {
  store: ThreadStore;
  /** The validated input; its `kaboo_session` and, on a resume, its messages are not used. */
  input: RunAgentInput;
  /** The person the run serves; a thread belongs to the first principal that ran it. */
  principal: string | undefined;
  /** Whether a person who does not own the thread may answer one of its questions (the agent's gates). */
  mayAnswer?: MayAnswer | undefined;
  /** Told once the run has read its thread and decided (held it in this isolate, or not). */
  decided?: (() => void) | undefined;
  /** Told, before the first event, that the sender is an approver (their response shows less). */
  onApprover?: (() => void) | undefined;
  /** Runs the agent on the input the store decided (its calls claimed in `store.ledger(threadId, holder)`). */
  run: (input: RunAgentInput, o?: { requester?: string; holder?: LedgerHolder }) => AsyncGenerator<AGUIEvent>;
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
  /**
   * The hosting Durable Object's hooks, when it hosts the run (see `hostedRun`). Its RUN_STARTED
   * went out before the run began (the handler sent it): the run sends none.
   */
  hosted?: HostedRunHooks | undefined;
}

/**
 * The run's events, decided and recorded by the thread store. The run is the thread's, not the
 * request's: it holds the thread (renewing its lease) until it ends or pauses, whoever reads.
 *
 * @param o - See {@link StoredRunOptions}.
 * @returns AG-UI events: RUN_STARTED (not in a hosting object: it went out before), then the run's
 *   own, a recorded outcome (replay), or RUN_ERROR.
 */
export async function* storedRun(o: StoredRunOptions): AsyncGenerator<AGUIEvent> {
  const { store, input } = o;
  const d: DecideOptions = { ...o, leaseMs: o.leaseMs ?? DEFAULT_RUN_LEASE_MS, now: o.now ?? Date.now };
  const live = liveRuns(store);
  // In a hosting object RUN_STARTED went out before the lease: every request of the thread comes to
  // this one object, so the hold below is seen by all of them. Elsewhere it goes out after the lease,
  // so that a client that reattaches in another isolate right after it finds the run in the store.
  const sent = o.hosted !== undefined;
  let decision: Decision;
  try {
    decision = await decideStoredRun(d);
  } catch (error) {
    o.decided?.();
    // Storage that stayed busy took nothing: the thread is free, and the client may simply retry.
    if (error instanceof StoreBusyError) return yield* refused(input, error, sent);
    throw error;
  }
  // Held in this isolate from here on (it runs one thing at a time): a second run is refused while
  // this one writes its lease, and a Stop and a reattach find it. (In a hosting object the run reads
  // its thread after its RUN_STARTED went out: a Stop or a reattach meanwhile waits for this.)
  if ("take" in decision) live.set(input.threadId, { ...liveRun(o, decision.take.data), taking: true });
  o.decided?.();
  let ran = false;
  try {
    const taken = "take" in decision ? await takeThread(o, d, decision) : decision;
    if (!sent) yield runStarted(input);
    if ("refuse" in taken) return yield runError(taken.refuse);
    if (("held" in taken ? taken.taken : taken).answerer === "approver") o.onApprover?.();
    if ("replay" in taken) return yield* replayed(input, taken.record, taken.replay);
    ran = true;
    yield* heldRun(o, taken.held, taken.taken, d);
  } finally {
    if (!ran && live.get(input.threadId)?.hub === o.hub) live.delete(input.threadId);
  }
}

/** The thread as this run took it: the record as held (lease written), and what it decided. */
interface Taken {
  held: ThreadRecord;
  taken: ToTake;
}

/**
 * Writes the run's lease (after the hosting object let RUN_STARTED go out), deciding again when the
 * thread changed since it was read. The hosting object keeps the run in the same turn.
 */
async function takeThread(
  o: StoredRunOptions,
  d: DecideOptions,
  first: { take: ToTake },
): Promise<Exclude<Decision, { take: ToTake }> | Taken> {
  let decision: Decision = first;
  try {
    await o.hosted?.beforeFirstWrite();
    for (let attempt = 0; attempt < 3 && "take" in decision; attempt++) {
      const held = await writeLease(d, decision.take, o.stop.requested);
      if (held) {
        o.hosted?.taken(o.input.runId);
        return { held, taken: decision.take };
      }
      decision = await decideStoredRun(d);
    }
  } catch (error) {
    if (error instanceof StoreBusyError) return { refuse: error };
    throw error;
  }
  return "take" in decision ? { refuse: busy(isResume(o.input)) } : decision;
}

/** The run's entry in {@link liveRuns}: what a Stop and a reattach in this isolate find. */
function liveRun(o: StoredRunOptions, data: ThreadData): LiveRun {
  return {
    runId: o.input.runId,
    token: data.lease?.token ?? "",
    principal: data.owner ?? undefined,
    stop: o.stop,
    hub: o.hub,
  };
}

/**
 * The run on a thread it holds: live (a cancel or a reattach finds it), its events logged, and its
 * outcome saved before RUN_FINISHED goes out; whatever ends it, the thread is let go.
 */
async function* heldRun(
  o: StoredRunOptions,
  held: ThreadRecord,
  take: ToTake,
  { leaseMs, now }: DecideOptions,
): AsyncGenerator<AGUIEvent> {
  const { store, input, log } = o;
  const { threadId, runId } = input;
  const hold = new ThreadHold({ store, threadId, record: held, leaseMs, now, log, onCancel: () => o.stop.request() });
  // Stopped before it died and run again (or stopped before its lease was written): it starts stopped.
  if (held.lease?.cancel === true) o.stop.request();
  const live = liveRuns(store);
  live.set(threadId, liveRun(o, held));
  // Its claims and its log's writes are this run's; the run it took the thread over from is gone
  // (see LedgerHolder). The run again of an attempt that died under this id goes on in that attempt's log.
  const holder: LedgerHolder = { token: held.lease?.token ?? "", tookOver: take.read.lease?.token };
  const attempt = take.read.lease?.runId === runId ? await attemptOf(o, held.lease?.attempt) : undefined;
  if (attempt) o.hub.continueFrom(attempt.events);
  if (store.appendEvents) logEvents(o, now(), { from: attempt?.logged, writer: holder });
  const { runInput, requester } = inputOnThread(input, held, take);
  const by = o.principal === undefined ? {} : { by: o.principal };
  const out: RunOutput = {};
  let ended = false;
  try {
    for await (const event of o.run(runInput, { ...requester, holder })) {
      // RUN_STARTED went out before the thread was taken.
      if (event.type === EventType.RUN_STARTED) continue;
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

/** What a dead attempt of this run logged (a log that cannot be read is left as it is: the run goes on unlogged). */
async function attemptOf(o: StoredRunOptions, attempt: number | undefined): Promise<DeadAttempt | undefined> {
  const { store, input, log } = o;
  try {
    return await deadAttempt(store, input.threadId, input.runId, attempt, o.hub.started);
  } catch (error) {
    log.warn("kaboo: could not read the log of a run run again", { threadId: input.threadId, error: describe(error) });
    return undefined;
  }
}

/**
 * Sends the run's events (RUN_STARTED on, or from `from`: those its dead attempt logged are there)
 * to its thread's log as `writer`, and drops the logs of runs that ended long ago.
 */
function logEvents(o: StoredRunOptions, now: number, at: { from: number | undefined; writer: LedgerHolder }): void {
  const { store, input, log } = o;
  const writer = new EventLogWriter({ store, threadId: input.threadId, runId: input.runId, log, ...at });
  o.hub.attach((e) => writer.add(e));
  store
    .compactEvents?.(input.threadId, now - (o.eventLogRetentionMs ?? DEFAULT_EVENT_LOG_RETENTION_MS))
    .catch((error) => {
      log.warn("kaboo: could not compact a thread's event log", { threadId: input.threadId, error: describe(error) });
    });
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

async function* refused(input: RunAgentInput, error: KabooError, sent: boolean): AsyncGenerator<AGUIEvent> {
  if (!sent) yield runStarted(input);
  yield runError(error);
}
