/**
 * The runs of a thread store that are live in this isolate, by thread: what a Stop (and a client
 * that reattaches) finds without a round trip to the store.
 *
 * @module
 */
import type { SafeStop } from "./safe-stop.js";

/** A run live in this isolate. */
export interface LiveRun {
  runId: string;
  /** The lease token it holds its thread with. */
  token: string;
  /** Whose run it is. */
  principal: string | undefined;
  stop: SafeStop;
}

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
