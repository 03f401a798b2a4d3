/**
 * A run's checkpoints: the run as it stands after each step (a model response whose calls are
 * about to run, each tool result, a batch that joined the transcript), as AG-UI messages and state,
 * so a page can continue it after a reload.
 *
 * @module
 */
import type { Message as AguiMessage } from "@ag-ui/core";
import type { Agent } from "../../agent/agent.js";
import type { InvocationState } from "../../agent/events.js";
import { InterruptState } from "../../agent/interrupts/interrupt.js";
import { interruptCallId } from "../../agent/interrupts/interrupt-id.js";
import type { Message, ToolResultBlock, ToolUseBlock } from "../../agent/messages/messages.js";
import { writePausedBatch, type PausedBatch } from "../../agent/interrupts/paused-batch.js";
import { runContext } from "../../agent/run-context.js";
import type { AgentStreamEvent } from "../../agent/stream-events.js";
import { sessionStateSnapshot, type SessionSnapshot } from "../../hooks/session-state-hook.js";
import { sessionHoldsPause, sessionSnapshot } from "../../agent/interrupts/session.js";
import { describe, InvalidStateError } from "../../errors.js";
import { defaultLogger, type Logger } from "../../logger.js";
import type { GrantStore } from "../../grants/store.js";
import { approvalDecisions } from "../../hooks/approval/run.js";
import { saveNewGrants } from "./new-grants.js";
import { toAguiMessages } from "../messages.js";

/**
 * One checkpoint of a run: the AG-UI messages and state a continuation starts from. While a
 * batch is in flight, `messages` end with its assistant message (and the results it has), and the
 * state's paused session holds that batch with the answers it runs under and nothing left to ask:
 * `runAgui({ continueRun: true })` goes on with the batch, never asking the model for it again.
 */
export interface RunCheckpoint {
  messages: AguiMessage[];
  state: Record<string, unknown>;
}

/** Options of {@link CheckpointTracker}. */
export interface CheckpointTrackerOptions {
  agent: Agent;
  invocationState: InvocationState;
  /** Writes a checkpoint (awaited; writes come in order). */
  save: (checkpoint: RunCheckpoint) => Promise<void>;
  /**
   * Called before each checkpoint is written: records what was decided so far (remembered grants),
   * so no checkpoint moves past an answer before what it decided is kept.
   */
  beforeSave?: (() => Promise<void>) | undefined;
  /** The AG-UI state around a paused session (the run puts it under its session key). */
  stateWith: (session: SessionSnapshot) => Record<string, unknown>;
  newId: () => string;
  /**
   * The id the stream's reader gave the model's latest response (the runner waits for the reader
   * before it checkpoints a batch), so a checkpoint names the message as the run's events and its
   * last snapshot do. Default: none (the checkpoint names it).
   */
  responseId?: (() => string | undefined) | undefined;
  toolMessageIds: ReadonlyMap<string, string>;
  logger?: Logger | undefined;
}

/** Follows one run and writes a checkpoint after each step. */
export class CheckpointTracker {
  readonly #o: CheckpointTrackerOptions;
  #inflight: PausedBatch | undefined;

  /** @param o - See {@link CheckpointTrackerOptions}. */
  constructor(o: CheckpointTrackerOptions) {
    this.#o = o;
    runContext.batchCheckpoint.set(o.invocationState, (batch, agent) => this.#batch(batch, agent));
  }

  /**
   * Follows a runner stream event: a tool result, or a batch that joined the transcript. A checkpoint
   * that cannot be written here is logged and skipped, never a failure of the run: the calls have
   * run (the ledger holds their results), and the next checkpoint or the run's end supersedes it.
   */
  async onEvent(event: AgentStreamEvent): Promise<void> {
    try {
      await this.#follow(event);
    } catch (error) {
      (this.#o.logger ?? defaultLogger).warn(`kaboo: a run checkpoint was not saved: ${describe(error)}`);
    }
  }

  async #follow(event: AgentStreamEvent): Promise<void> {
    const inflight = this.#inflight;
    if (!inflight) return;
    if (event.type === "toolResult" && callsOf(inflight).has(event.result.toolUseId)) {
      if (inflight.toolResults.some((r) => r.toolUseId === event.result.toolUseId)) return;
      inflight.toolResults.push(event.result);
      // The call as it ran (a hook or the person's edit may have rewritten its input).
      inflight.toolUseMessage = withCall(inflight.toolUseMessage, event.toolUse);
      await this.#save();
    } else if (event.type === "message" && resultsFor(event.message, inflight)) {
      this.#inflight = undefined;
      await this.#save();
    }
  }

  async #batch(batch: PausedBatch, agent: Agent): Promise<void> {
    // Child runs (delegates) share the run's keys: only this run's own batches are its steps.
    if (agent !== this.#o.agent) return;
    // The reader has read the response (the loop waits for it), so its id is the reader's: a tab that
    // watches the run gets this checkpoint first, and the run's last snapshot must not rename the message
    // (the watcher's client would keep both, out of order). Without a reader's id a checkpoint names it
    // (its continuation keeps that name).
    const id = batch.toolUseMessage.id ?? this.#o.responseId?.() ?? this.#o.newId();
    // The runner's own message takes the name too, so every later snapshot says the same.
    batch.toolUseMessage.id ??= id;
    const toolUseMessage = { ...batch.toolUseMessage };
    this.#inflight = { ...batch, toolUseMessage, toolResults: [...batch.toolResults] };
    await this.#save();
  }

  async #save(): Promise<void> {
    await this.#o.beforeSave?.();
    await this.#o.save(this.current());
  }

  /** The run as it stands now. */
  current(): RunCheckpoint {
    const { agent } = this.#o;
    const inflight = this.#inflight && !committed(agent.messages, this.#inflight) ? this.#inflight : undefined;
    // The reader lags the loop: the transcript may already end with the run's answer, which is no
    // step (the run's end supersedes every checkpoint). A continuation asks the model for it again.
    const transcript: Message[] = structuredClone([...withoutAnswer(agent.messages)]);
    const scratch = new InterruptState();
    if (inflight) {
      transcript.push(structuredClone(inflight.toolUseMessage));
      if (inflight.toolResults.length)
        transcript.push({ role: "user", content: structuredClone(inflight.toolResults) });
      const calls = callsOf(inflight);
      for (const [id, i] of agent.interruptState.interrupts) {
        const call = interruptCallId(id);
        if (i.response !== undefined && call !== undefined && calls.has(call)) scratch.interrupts.set(id, { ...i });
      }
      writePausedBatch(scratch, structuredClone(inflight));
    }
    const delegates = sessionStateSnapshot(this.#o.invocationState, this.#o.logger ?? defaultLogger)?.delegates;
    const session = sessionSnapshot(JSON.parse(JSON.stringify(scratch)), delegates ?? {});
    return {
      messages: toAguiMessages(transcript, this.#o.newId, this.#o.toolMessageIds),
      state: this.#o.stateWith(session),
    };
  }
}

function withoutAnswer(messages: readonly Message[]): readonly Message[] {
  let end = messages.length;
  while (
    end > 0 &&
    messages[end - 1]?.role === "assistant" &&
    !messages[end - 1]?.content.some((b) => b.type === "toolUse")
  )
    end--;
  return end === messages.length ? messages : messages.slice(0, end);
}

function callsOf(batch: PausedBatch): Set<string> {
  return new Set(batch.toolUseMessage.content.flatMap((b) => (b.type === "toolUse" ? [b.toolUseId] : [])));
}

function withCall(message: Message, call: ToolUseBlock): Message {
  return {
    ...message,
    content: message.content.map((b) => (b.type === "toolUse" && b.toolUseId === call.toolUseId ? { ...call } : b)),
  };
}

/** Whether a message is the results of the batch (it joined the transcript). */
function resultsFor(message: Message, batch: PausedBatch): boolean {
  const calls = callsOf(batch);
  return (
    message.role === "user" &&
    message.content.some((b) => b.type === "toolResult" && calls.has((b as ToolResultBlock).toolUseId))
  );
}

function committed(transcript: readonly Message[], batch: PausedBatch): boolean {
  return transcript.some((m) => resultsFor(m, batch));
}

/** Options of {@link runCheckpoints}. */
export interface RunCheckpointsOptions {
  agent: Agent;
  input: { threadId: string };
  invocationState: InvocationState;
  save: (checkpoint: RunCheckpoint) => Promise<void>;
  grantStore?: GrantStore | undefined;
  /** The person the run's grants belong to (see `AguiRunOptions.principal`). Default: none. */
  principal?: string | undefined;
  /** The AG-UI state key of the paused session. */
  sessionKey: string;
  newId: () => string;
  /** See {@link CheckpointTrackerOptions.responseId}. */
  responseId?: (() => string | undefined) | undefined;
  toolMessageIds: ReadonlyMap<string, string>;
  logger?: Logger | undefined;
}

/**
 * The checkpoints of one AG-UI run, remembering `thread`/`always` answers as it goes.
 * @param o - See {@link RunCheckpointsOptions}.
 * @returns The tracker the run feeds its events to.
 */
export function runCheckpoints(o: RunCheckpointsOptions): CheckpointTracker {
  let recorded = 0;
  const shared = runContext.sharedState.find(o.invocationState);
  return new CheckpointTracker({
    agent: o.agent,
    invocationState: o.invocationState,
    save: o.save,
    // A `thread`/`always` answer is remembered before the next call it covers can run (not only
    // when the run ends): a reload after it must not ask again.
    beforeSave: async () => {
      const from = recorded;
      recorded = approvalDecisions(o.invocationState).length;
      if (!o.grantStore) return;
      // Quietly: one that cannot be saved now is tried again, and reported, when the run ends.
      const saving = saveNewGrants({
        invocationState: o.invocationState,
        threadId: o.input.threadId,
        principal: o.principal,
        grantStore: o.grantStore,
        log: o.logger ?? defaultLogger,
        from,
        report: false,
      });
      for await (const _ of saving);
    },
    stateWith: (session) => ({ ...shared, [o.sessionKey]: session }),
    newId: o.newId,
    responseId: o.responseId,
    toolMessageIds: o.toolMessageIds,
    logger: o.logger,
  });
}

/**
 * A checkpoint that holds a batch in flight the agent could not take up (corrupt or forged): the
 * run is not continued. Asking the model again instead would make new calls for ones that may have
 * run already.
 * @param agent - The runner agent, its paused state restored from `session`.
 * @param session - The checkpoint's paused session (AG-UI state under the session key).
 * @throws InvalidStateError
 */
export function assertContinuable(agent: Agent, session: unknown): void {
  if (sessionHoldsPause(session) && !agent.interruptState.activated) {
    throw new InvalidStateError("The checkpoint's batch in flight could not be read; the run was not continued.");
  }
}
