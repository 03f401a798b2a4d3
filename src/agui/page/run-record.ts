/**
 * A run's record in the session store: its checkpoints while it runs, then how it ended.
 *
 * @module
 */
import type { Interrupt as AguiInterrupt, Message as AguiMessage, RunAgentInput } from "@ag-ui/core";
import type { RunCheckpoint } from "../core/checkpoint.js";
import {
  THREAD_SNAPSHOT_VERSION,
  type RunRecord,
  type SessionStore,
  type ThreadSnapshot,
} from "../../indexeddb/session-store.js";
import { isObject } from "../../agent/shared/guards.js";

/** Writes one run's snapshots in order (each write waits for the one before). */
export class RunRecorder {
  readonly #store: SessionStore | undefined;
  readonly #threadId: string;
  readonly #record: RunRecord;
  #chain: Promise<void> = Promise.resolve();
  /** The content last saved (the run's input until a step is saved). */
  #saved: RunCheckpoint;
  /** The questions the run answers, kept while no checkpoint moved past them (a failed resume keeps its pause). */
  #asked: AguiInterrupt[];

  /**
   * @param store - Where snapshots go (`undefined`: nowhere).
   * @param input - The run's input (its messages and state are the first checkpoint).
   * @param asked - The open questions before the run (those a resume answers).
   */
  constructor(store: SessionStore | undefined, input: RunAgentInput, asked: AguiInterrupt[] = []) {
    this.#store = store;
    this.#threadId = input.threadId;
    this.#record = {
      runId: input.runId,
      status: "running",
      tools: input.tools ?? [],
      context: input.context ?? [],
      forwardedProps: isObject(input.forwardedProps) ? input.forwardedProps : {},
    };
    if (input.resume?.length) this.#record.resume = input.resume;
    this.#saved = { messages: input.messages ?? [], state: isObject(input.state) ? input.state : {} };
    this.#asked = asked;
  }

  /** The run record as written last. */
  get record(): RunRecord {
    return this.#record;
  }

  /** Saves the run as it starts: a reload before its first step continues from its input. */
  start(): Promise<void> {
    return this.#write(this.#saved, []);
  }

  /** Saves a step. The resume's answers now live in the checkpoint's state. */
  async step(checkpoint: RunCheckpoint): Promise<void> {
    delete this.#record.resume;
    await this.#write(checkpoint, []);
    this.#saved = checkpoint;
    this.#asked = [];
  }

  /** Saves how the run ended (done, paused on `interrupts`, or cancelled). */
  finish(messages: AguiMessage[], state: Record<string, unknown>, interrupts: AguiInterrupt[]): Promise<void> {
    this.#record.status = "finished";
    delete this.#record.resume;
    return this.#write({ messages, state }, interrupts);
  }

  /**
   * Saves a failed run with its error, and what it kept: the snapshots it sent before the error, else
   * its last saved checkpoint (with the questions it answered, while no checkpoint moved past them).
   */
  fail(error: { code: string; message: string }, kept: Partial<RunCheckpoint>): Promise<void> {
    this.#record.status = "failed";
    this.#record.error = error;
    delete this.#record.resume;
    const last = { messages: kept.messages ?? this.#saved.messages, state: kept.state ?? this.#saved.state };
    return this.#write(last, this.#asked);
  }

  #write(content: RunCheckpoint, interrupts: AguiInterrupt[]): Promise<void> {
    const store = this.#store;
    if (!store) return Promise.resolve();
    const snapshot: ThreadSnapshot = {
      version: THREAD_SNAPSHOT_VERSION,
      threadId: this.#threadId,
      messages: content.messages,
      state: content.state,
      interrupts,
      savedAt: Date.now(),
      run: structuredClone(this.#record),
    };
    const write = this.#chain.then(() => store.save(snapshot));
    // A failed write does not stop the next one.
    this.#chain = write.then(undefined, () => undefined);
    return write;
  }
}
