/**
 * Where a page keeps each thread's last AG-UI snapshot (messages, state with the
 * interrupt state, open interrupts), so a reload can bring a paused approval back.
 *
 * @module
 */
import type {
  Context as AguiContext,
  Interrupt as AguiInterrupt,
  Message as AguiMessage,
  ResumeEntry,
  Tool as AguiTool,
} from "@ag-ui/core";
import { createStore, del, get, keys, set, type UseStore } from "idb-keyval";
import * as z from "zod/v4/mini";
import { looseObject, recordOf, sizedString } from "../agent/shared/lean-schemas.js";
import { withinDepth } from "../agent/shared/json-depth.js";

/**
 * Version of a stored {@link ThreadSnapshot}. 1: `{ version, threadId, messages, state, interrupts, savedAt }`;
 * the optional `run` was added within version 1 (older builds ignore it, and a snapshot without it
 * is a thread at rest).
 */
export const THREAD_SNAPSHOT_VERSION = 1;

/**
 * The thread's last run, as its checkpoints left it. `running`: the snapshot is a checkpoint of a run
 * that has not ended (its page went away mid-run, or another tab drives it now): `connectAgent()`
 * continues it. `failed`: the run ended with `error`. `finished`: it ended (done, paused or cancelled).
 */
export interface RunRecord {
  runId: string;
  status: "running" | "finished" | "failed";
  /** The run's browser tools, context and forwarded props: a continuation runs with the same. */
  tools: AguiTool[];
  context: AguiContext[];
  forwardedProps: Record<string, unknown>;
  /** Answers a resume was started with, until its batch has been checkpointed with them. */
  resume?: ResumeEntry[];
  /** Why a `failed` run failed: the `RUN_ERROR` code and message. */
  error?: { code: string; message: string };
}

/** A thread as the front end last saw it. */
export interface ThreadSnapshot {
  version: typeof THREAD_SNAPSHOT_VERSION;
  threadId: string;
  messages: AguiMessage[];
  state: Record<string, unknown>;
  /** The open interrupts of the last run (empty when it did not pause). */
  interrupts: AguiInterrupt[];
  /** Epoch ms. */
  savedAt: number;
  /** The thread's last run; absent for snapshots written before runs were checkpointed. */
  run?: RunRecord;
  /**
   * @deprecated Written by earlier builds and ignored now: the execution ledger records which calls
   * ran. Still accepted so older snapshots load.
   */
  completed?: string[];
}

const snapshotSchema = z.object({
  version: z.literal(THREAD_SNAPSHOT_VERSION),
  threadId: sizedString(1),
  messages: z.array(looseObject({ id: z.string(), role: z.string() })),
  state: recordOf(z.unknown()),
  interrupts: z.array(looseObject({ id: z.string(), reason: z.string() })),
  savedAt: z.number(),
  completed: z.optional(z.array(z.string())),
  run: z.optional(z.unknown()),
});

const runSchema = z.object({
  runId: sizedString(1),
  status: z.literal(["running", "finished", "failed"]),
  tools: z.array(looseObject({ name: z.string(), description: z.string() })),
  context: z.array(z.object({ description: z.string(), value: z.string() })),
  forwardedProps: recordOf(z.unknown()),
  resume: z.optional(
    z.array(
      z.object({
        interruptId: sizedString(1),
        status: z.literal(["resolved", "cancelled"]),
        payload: z.optional(z.unknown()),
      }),
    ),
  ),
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
});

/**
 * Reads a snapshot's run record. One that does not parse is never continued (nor read as done): the
 * run reads as failed with code `INVALID_CHECKPOINT`, and the page shows that.
 */
function readRun(value: unknown, onCorrupt: (reason: string) => void): RunRecord | undefined {
  if (value === undefined) return undefined;
  const parsed = runSchema.safeParse(value);
  if (parsed.success) return parsed.data as RunRecord;
  const reason = `kaboo: a corrupt run checkpoint was not continued: ${z.prettifyError(parsed.error)}`;
  onCorrupt(reason);
  const runId = (value as { runId?: unknown } | null)?.runId;
  return {
    runId: typeof runId === "string" && runId ? runId : "unknown",
    status: "failed",
    tools: [],
    context: [],
    forwardedProps: {},
    error: { code: "INVALID_CHECKPOINT", message: "The saved run could not be read, so it was not continued." },
  };
}

/**
 * Parses a stored snapshot; `undefined` (and a report) when it is corrupt.
 * @param value - What storage returned.
 */
export function parseThreadSnapshot(
  value: unknown,
  onCorrupt: (reason: string) => void = console.warn,
): ThreadSnapshot | undefined {
  if (value === undefined) return undefined;
  if (!withinDepth(value)) {
    onCorrupt("kaboo: ignoring a corrupt thread snapshot: nested too deep");
    return undefined;
  }
  const parsed = snapshotSchema.safeParse(value);
  if (parsed.success) {
    const { run, ...rest } = parsed.data;
    const snapshot = rest as unknown as ThreadSnapshot;
    const record = readRun(run, onCorrupt);
    if (record) snapshot.run = record;
    return snapshot;
  }
  onCorrupt(`kaboo: ignoring a corrupt thread snapshot: ${z.prettifyError(parsed.error)}`);
  return undefined;
}

/** Keeps thread snapshots. */
export interface SessionStore {
  load(threadId: string): Promise<ThreadSnapshot | undefined>;
  save(snapshot: ThreadSnapshot): Promise<void>;
  remove(threadId: string): Promise<void>;
  /** Thread ids with a snapshot. */
  threads(): Promise<string[]>;
}

/** A {@link SessionStore} in memory (tests, servers with their own persistence). */
export class MemorySessionStore implements SessionStore {
  readonly #map = new Map<string, unknown>();
  async load(threadId: string): Promise<ThreadSnapshot | undefined> {
    return parseThreadSnapshot(this.#map.get(threadId));
  }
  async save(snapshot: ThreadSnapshot): Promise<void> {
    this.#map.set(snapshot.threadId, structuredClone(snapshot));
  }
  async remove(threadId: string): Promise<void> {
    this.#map.delete(threadId);
  }
  async threads(): Promise<string[]> {
    return [...this.#map.keys()];
  }
}

/** Options of {@link IndexedDbSessionStore}. */
export interface IndexedDbSessionStoreOptions {
  /**
   * Database name. Default `kaboo-workflows-sessions` — its own database, because idb-keyval
   * keeps one object store per database (the grant store uses `kaboo-workflows`).
   */
  dbName?: string;
  /** Default `threads`. */
  storeName?: string;
  /** Told about corrupt entries (skipped, never returned). Default `console.warn`. */
  onCorrupt?: (reason: string) => void;
}

/**
 * A {@link SessionStore} in IndexedDB (idb-keyval, a dedicated database).
 * @example
 * ```ts
 * const agent = new KabooAgent({ agent: runner, sessionStore: new IndexedDbSessionStore(), threadId });
 * await agent.connectAgent(); // after a reload: messages, state and pendingInterrupts come back
 * ```
 */
export class IndexedDbSessionStore implements SessionStore {
  readonly #options: IndexedDbSessionStoreOptions;
  #store: UseStore | undefined;

  constructor(options: IndexedDbSessionStoreOptions = {}) {
    this.#options = options;
  }

  // Opened lazily: constructing the store in a module that never uses it costs nothing.
  get #db(): UseStore {
    return (this.#store ??= createStore(
      this.#options.dbName ?? "kaboo-workflows-sessions",
      this.#options.storeName ?? "threads",
    ));
  }

  async load(threadId: string): Promise<ThreadSnapshot | undefined> {
    return parseThreadSnapshot(await get(threadId, this.#db), this.#options.onCorrupt);
  }
  async save(snapshot: ThreadSnapshot): Promise<void> {
    await set(snapshot.threadId, snapshot, this.#db);
  }
  async remove(threadId: string): Promise<void> {
    await del(threadId, this.#db);
  }
  async threads(): Promise<string[]> {
    return (await keys(this.#db)).filter((k): k is string => typeof k === "string");
  }
}
