/**
 * How a page gets back to a thread after a reload: the stored snapshot replayed, an unfinished run
 * continued from its checkpoint, or another tab's run watched live.
 *
 * @module
 */
import { EventType, type BaseEvent, type RunAgentInput, type RunFinishedOutcome } from "@ag-ui/core";
import { messagesSnapshot, runFinished, runStarted, stateSnapshot } from "../run-events.js";
import { EventRelay } from "./relay.js";
import type { DriveLock, RunChannel, RunLocks } from "./run-lock.js";
import type { SessionStore, ThreadSnapshot } from "../../indexeddb/session-store.js";
import { isTerminal } from "../run-events.js";

/** How a run failed: its `RUN_ERROR` code and message. */
export interface RunFailure {
  code: string;
  message: string;
}

/** A thread at rest as AG-UI events: RUN_STARTED, its snapshots, RUN_FINISHED with its open interrupts. */
export function* replay(input: RunAgentInput, snapshot: ThreadSnapshot | undefined): Generator<BaseEvent> {
  const { threadId, runId } = input;
  const now = Date.now();
  yield runStarted({ threadId, runId }, now);
  if (snapshot) {
    yield stateSnapshot(snapshot.state, now);
    yield messagesSnapshot(snapshot.messages, now);
  }
  const outcome: RunFinishedOutcome = snapshot?.interrupts.length
    ? { type: "interrupt", interrupts: snapshot.interrupts }
    : { type: "success" };
  yield runFinished({ threadId, runId }, outcome, now);
}

/**
 * The run an unfinished record continues: its own run id, tools, context and forwarded props, from
 * the checkpoint's messages and state; a resume whose batch never got checkpointed is sent again
 * with the same answers (so no approval is asked twice).
 */
export function continuation(
  threadId: string,
  snapshot: ThreadSnapshot,
): { input: RunAgentInput; continueRun: boolean; opening: BaseEvent[] } {
  const record = snapshot.run;
  const runId = record?.runId ?? crypto.randomUUID();
  const input: RunAgentInput = {
    threadId,
    runId,
    messages: snapshot.messages,
    state: snapshot.state,
    tools: record?.tools ?? [],
    context: record?.context ?? [],
    forwardedProps: record?.forwardedProps ?? {},
  };
  if (record?.resume?.length) input.resume = record.resume;
  const now = Date.now();
  const opening = [
    runStarted({ threadId, runId }, now),
    stateSnapshot(snapshot.state, now),
    messagesSnapshot(snapshot.messages, now),
  ];
  return { input, continueRun: !input.resume, opening };
}

/** Options of {@link watchRun}. */
export interface WatchOptions {
  input: RunAgentInput;
  store: SessionStore | undefined;
  locks: RunLocks;
  channel: RunChannel;
  signal: AbortSignal;
  onFailure: (failure: RunFailure | undefined) => void;
  /** Continues (or replays) the thread once this tab holds its lock: the driver ended or died. */
  takeOver: (snapshot: ThreadSnapshot | undefined) => AsyncGenerator<BaseEvent>;
}

/**
 * Watches the run another tab drives: its last checkpoint, then its events as they come, until it
 * ends. If that tab dies first (its lock is free and the run unfinished), this tab continues it.
 */
export async function* watchRun(o: WatchOptions): AsyncGenerator<BaseEvent> {
  const { threadId } = o.input;
  const queue: { event: BaseEvent; catchUp: boolean }[] = [];
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  const self = crypto.randomUUID();
  const unlisten = o.channel.listen((message) => {
    queue.push({ event: message.event, catchUp: message.to === self });
    poke();
  }, self);
  // The driver answers with the message it streams now: this tab shows it before its end.
  o.channel.join(self);
  const stop = new AbortController();
  let lock: DriveLock | undefined;
  const taken = o.locks.take(threadId, stop.signal).then(
    (held) => {
      lock = held;
      poke();
    },
    () => undefined,
  );
  o.signal.addEventListener("abort", poke);
  try {
    const snapshot = await o.store?.load(threadId);
    yield runStarted({ threadId, runId: snapshot?.run?.runId ?? o.input.runId });
    if (snapshot) yield* [stateSnapshot(snapshot.state), messagesSnapshot(snapshot.messages)];
    const relay = new EventRelay();
    for (;;) {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { event } = next;
        if (next.catchUp) {
          yield* relay.acceptCatchUp(event);
          continue;
        }
        yield* relay.accept(event);
        if (event.type === EventType.RUN_ERROR) o.onFailure(failureOf(event));
        if (event.type === EventType.RUN_FINISHED) o.onFailure(undefined);
        if (isTerminal(event)) return;
      }
      if (lock) {
        yield* relay.closeAll();
        for await (const event of o.takeOver(await o.store?.load(threadId))) {
          if (event.type !== EventType.RUN_STARTED) yield event;
        }
        return;
      }
      if (o.signal.aborted) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    unlisten();
    o.signal.removeEventListener("abort", poke);
    stop.abort();
    await taken;
    await (lock as DriveLock | undefined)?.release();
  }
}

function failureOf(event: BaseEvent): RunFailure {
  const e = event as { code?: unknown; message?: unknown };
  return {
    code: typeof e.code === "string" ? e.code : "RUN_FAILED",
    message: typeof e.message === "string" ? e.message : "",
  };
}
