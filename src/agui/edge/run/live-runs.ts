/**
 * The runs of a thread store that are live in this isolate, by thread: what a Stop (and a client
 * that reattaches) finds without a round trip to the store.
 *
 * @module
 */
import type { RunHub } from "./run-hub.js";
import type { SafeStop } from "./safe-stop.js";

/** A run live in this isolate. */
export interface LiveRun {
  runId: string;
  /** The lease token it holds its thread with. */
  token: string;
  /** Whose run it is. */
  principal: string | undefined;
  stop: SafeStop;
  /** Its events, for clients that reattach; kept for {@link LINGER_MS} after the run ends. */
  hub: RunHub;
  /**
   * The run decided to take its thread and has not written its lease yet (RUN_STARTED went out
   * first): until it has, a second run of the thread in this isolate is refused. After it, the
   * stored lease decides.
   */
  taking?: boolean;
}

/** How long a finished run's events stay here for a client that reattaches late: 60 s. */
export const LINGER_MS = 60_000;

// Keyed by the store object: one store serves many threads, and a handler may be built per request
// (a Worker does, from `env`) while its runs outlive it. Nothing per request lives here.
const registries = new WeakMap<object, Map<string, LiveRun>>();

/**
 * The live runs of one store in this isolate.
 *
 * @param store - The thread store (any object identity).
 * @returns Its map of thread id → live run.
 */
export function liveRuns(store: object): Map<string, LiveRun> {
  let runs = registries.get(store);
  if (!runs) {
    runs = new Map();
    registries.set(store, runs);
  }
  return runs;
}

const starting = new WeakMap<object, Map<string, Promise<void>>>();

/**
 * Notes that a run of the thread has sent RUN_STARTED and has not read its thread yet (a hosting
 * object's run begins once its response took RUN_STARTED): a Stop and a reattach wait for it.
 *
 * @param store - The thread store (any object identity).
 * @param threadId - The run's thread.
 * @param decided - Settles once the run has read its thread and decided (held it, or not).
 */
export function noteStarting(store: object, threadId: string, decided: Promise<void>): void {
  let runs = starting.get(store);
  if (!runs) {
    runs = new Map();
    starting.set(store, runs);
  }
  runs.set(threadId, decided);
  void decided.then(() => {
    if (runs.get(threadId) === decided) runs.delete(threadId);
  });
}

/**
 * Waits until no run of the thread in this isolate is between its RUN_STARTED and its decision.
 *
 * @param store - The thread store.
 * @param threadId - The thread.
 * @returns When the run that had sent RUN_STARTED (if any) has decided.
 */
export async function untilDecided(store: object, threadId: string): Promise<void> {
  for (let run = starting.get(store)?.get(threadId); run; run = starting.get(store)?.get(threadId)) await run;
}

/**
 * Keeps a run's entry for {@link LINGER_MS} after it ended, then drops it (unless a newer run of
 * the thread replaced it).
 *
 * @param runs - The store's live runs.
 * @param threadId - The run's thread.
 * @param runId - The run.
 */
export function lingerThenDrop(runs: Map<string, LiveRun>, threadId: string, runId: string): void {
  const timer = setTimeout(() => {
    if (runs.get(threadId)?.runId === runId) runs.delete(threadId);
  }, LINGER_MS);
  // A finished run's timer must not keep a process alive (Deno, Node).
  (timer as { unref?: () => void }).unref?.();
}
