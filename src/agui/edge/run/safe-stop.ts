/**
 * A Stop that waits for a safe point. At the edge a run is cancelled only when the thread's person
 * asks (never because a connection went away), and even then a call that is executing is not cut
 * off: reporting "cancelled" for a call whose effect happened would be a lie.
 *
 * The run's signal aborts at once when no server tool is executing (a model turn is cut, nothing
 * of it is kept as done); otherwise as soon as the last executing call has returned. An executing
 * call's own signal aborts at once (a tool that honours it ends, and its result or error is
 * recorded); one whose callback has not settled within the agent's `toolGraceMs` is abandoned
 * (`ToolAbandonedError`): its claim is marked as of unknown outcome, the run ends asking whether it
 * went through, and the thread is free. Calls that have not started when the Stop came are not run.
 *
 * A Stop that came before a resume began (it was recorded in the lease of a run that died before
 * its safe point, and this is that run again) does not abort at once: the resumed batch may hold
 * calls the dead run claimed, and those were not cancelled (they may have run). Each call of the
 * batch is looked up in the ledger instead: one never claimed is cancelled without starting, one
 * claimed without a result stays the outcome-unknown question it is (and its answer ends the batch
 * without asking the model again), one with a result keeps it. The signal aborts when the model
 * would be called next.
 *
 * @module
 */
import type { Agent } from "../../../agent/agent.js";
import { BeforeInvocationEvent, BeforeModelCallEvent, BeforeToolCallEvent } from "../../../agent/events.js";
import { readPausedBatch } from "../../../agent/interrupts/paused-batch.js";
import { callKey, runLedger } from "../../../agent/run-context.js";
import type { AgentTool, ToolContext, ToolOutput } from "../../../agent/tools/tools.js";
import { ToolAbandonedError, graceWait } from "../../../agent/tools/call-deadline.js";
import { DEFAULT_TOOL_GRACE_MS } from "../../../agent/limits.js";
import { type LinkedAbort, linkedAbort } from "../../../agent/shared/abort.js";

/** The note the model and the person read for a call a Stop kept from running. */
export const STOPPED_BEFORE_RUN = "The run was stopped on request before this tool ran.";

/** A Stop of one run, honoured at the next safe point. */
export class SafeStop {
  readonly #controller = new AbortController();
  #requested = false;
  #executing = 0;
  /** The run resumes a paused batch; set by {@link SafeStop.install}. */
  #resuming = false;
  /** The run has begun (its BeforeInvocation went out). */
  #began = false;
  /** A Stop came before a resume began: its batch's calls are looked up in the ledger, the abort waits. */
  #deferred = false;
  /** The resumed batch's calls as the model made them (their ledger keys), by id. */
  #resumed = new Map<string, unknown>();
  /** The executing calls' own Stops. */
  #calls = new Set<(reason: unknown) => void>();
  /** How long a call has to end once stopped (the agent's `toolGraceMs`). */
  #graceMs = DEFAULT_TOOL_GRACE_MS;

  /** The run's signal: aborts only at a safe point after {@link SafeStop.request}. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether a Stop was asked for. */
  get requested(): boolean {
    return this.#requested;
  }

  /** Asks the run to stop at its next safe point. Idempotent. */
  request(): void {
    this.#requested = true;
    if (this.#resuming && !this.#began) this.#deferred = true;
    if (this.#deferred) return;
    for (const stop of this.#calls) stop(new DOMException("The run was stopped on request.", "AbortError"));
    this.#abortIfIdle();
  }

  /**
   * Wires the Stop into an agent: its server tools are counted while they execute, and a call that
   * starts after the Stop is cancelled with {@link STOPPED_BEFORE_RUN}.
   *
   * @param agent - The run's agent (a fresh one per request at the edge).
   * @param o - `resuming`: the run answers a paused batch's questions. Default `false`.
   */
  install(agent: Agent, o: { resuming?: boolean } = {}): void {
    this.#resuming = o.resuming === true;
    this.#graceMs = agent.toolGraceMs;
    for (const name of agent.toolNames()) {
      const original = agent.tool(name);
      if (!original || original.kind === "client") continue;
      agent.removeTool(name);
      agent.addTool(this.#counted(original));
    }
    agent.hooks.addCallback(BeforeInvocationEvent, (event) => {
      this.#began = true;
      if (event.resuming && this.#deferred) this.#readResumed(event.agent);
    });
    agent.hooks.addCallback(BeforeToolCallEvent, (event) => {
      if (!this.#requested || event.cancel !== false) return;
      const input = this.#deferred ? this.#resumed.get(event.toolUse.toolUseId) : undefined;
      if (input === undefined) event.cancel = STOPPED_BEFORE_RUN;
      else return this.#cancelIfNeverClaimed(event, input);
    });
    // Every result of the batch is taken by the time the model is called again: a Stop asked for
    // while its calls executed ends the run here, before a model that answers at once (a cache, a
    // local model) could finish a turn before the abort that waits on a macrotask.
    agent.hooks.addCallback(BeforeModelCallEvent, () => {
      this.#deferred = false;
      this.#abortIfIdle();
    });
  }

  #readResumed(agent: Agent): void {
    try {
      for (const block of readPausedBatch(agent.interruptState).toolUseMessage.content)
        if (block.type === "toolUse") this.#resumed.set(block.toolUseId, block.input ?? null);
    } catch {
      // Not a paused batch the runner can resume either: it refuses the run.
    }
  }

  /**
   * Cancels a call of the resumed batch that no run ever claimed (its claim is taken and dropped at
   * once: the call provably did not start). A claimed call goes on to the runner's own claim.
   */
  async #cancelIfNeverClaimed(event: BeforeToolCallEvent, input: unknown): Promise<void> {
    const state = event.invocationState;
    const ledger = runLedger(event.agent, state);
    const key = callKey(state, event.toolUse.toolUseId, input);
    const outcome = await ledger.claim(key);
    if (outcome.status === "claimed") {
      await ledger.release(key, outcome.token);
      event.cancel = STOPPED_BEFORE_RUN;
    } else if (outcome.status === "unknown") {
      // Its answer finishes the batch as it stands: the stopped run does not go on to the model.
      event.stopLoop = true;
    }
  }

  #counted(tool: AgentTool): AgentTool {
    // A view of the tool with its own `call`: every other property reads through to the original.
    const counted = Object.create(tool) as { -readonly [K in keyof AgentTool]: AgentTool[K] };
    counted.call = async (input, context) => {
      this.#executing++;
      // The call's own Stop: its signal (made when the tool reads it) aborts, and its grace starts.
      let link: LinkedAbort | undefined;
      let stopped: unknown;
      let stop = (_reason: unknown): void => undefined;
      try {
        // Claimed after the Stop came (its claim is the store's round trip): it does not start.
        if (this.#requested && !this.#deferred) throw new Error(STOPPED_BEFORE_RUN);
        const own: ToolContext = {
          agent: context.agent,
          toolUse: context.toolUse,
          invocationState: context.invocationState,
          get signal() {
            link ??= linkedAbort(context.signal);
            if (stopped !== undefined) link.abort(stopped);
            return link.signal;
          },
          get idempotencyKey() {
            return context.idempotencyKey;
          },
          interrupt: (request) => context.interrupt(request),
        };
        let run: Promise<ToolOutput>;
        try {
          run = tool.call(input, own);
        } catch (error) {
          run = Promise.reject(error);
        }
        const wait = graceWait(run, this.#graceMs, (late) => {
          return new ToolAbandonedError(tool.name, context.toolUse.toolUseId, "stopped", late);
        });
        stop = (reason) => {
          stopped = reason;
          link?.abort(reason);
          wait.startGrace();
        };
        this.#calls.add(stop);
        return await wait.promise;
      } finally {
        this.#calls.delete(stop);
        link?.unlink();
        this.#executing--;
        // After a macrotask: the runner first takes the call's result (its wait races the signal).
        if (this.#requested && !this.#deferred) setTimeout(() => this.#abortIfIdle(), 0);
      }
    };
    return counted;
  }

  #abortIfIdle(): void {
    if (this.#requested && this.#executing === 0 && !this.#controller.signal.aborted) this.#controller.abort("stopped");
  }
}
