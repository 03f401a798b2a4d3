/**
 * A Stop that waits for a safe point. At the edge a run is cancelled only when the thread's person
 * asks (never because a connection went away), and even then a call that is executing finishes
 * and is recorded: cutting it off would report "cancelled" for a call whose effect happened.
 *
 * The run's signal aborts at once when no server tool is executing (a model turn is cut, nothing
 * of it is kept as done); otherwise as soon as the last executing call has returned. Calls that
 * have not started when the Stop came are not run.
 *
 * @module
 */
import type { Agent } from "../../agent/agent.js";
import { BeforeModelCallEvent, BeforeToolCallEvent } from "../../agent/events.js";
import type { AgentTool } from "../../agent/tools.js";

/** The note the model and the person read for a call a Stop kept from running. */
export const STOPPED_BEFORE_RUN = "The run was stopped on request before this tool ran.";

/** A Stop of one run, honoured at the next safe point. */
export class SafeStop {
  readonly #controller = new AbortController();
  #requested = false;
  #executing = 0;

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
    this.#abortIfIdle();
  }

  /**
   * Wires the Stop into an agent: its server tools are counted while they execute, and a call that
   * starts after the Stop is cancelled with {@link STOPPED_BEFORE_RUN}.
   *
   * @param agent - The run's agent (a fresh one per request at the edge).
   */
  install(agent: Agent): void {
    for (const name of agent.toolNames()) {
      const original = agent.tool(name);
      if (!original || original.kind === "client") continue;
      agent.removeTool(name);
      agent.addTool(this.#counted(original));
    }
    agent.hooks.addCallback(BeforeToolCallEvent, (event) => {
      if (this.#requested) event.cancel = STOPPED_BEFORE_RUN;
    });
    // Every result of the batch is taken by the time the model is called again: a Stop asked for
    // while its calls executed ends the run here, before a model that answers at once (a cache, a
    // local model) could finish a turn before the abort that waits on a macrotask.
    agent.hooks.addCallback(BeforeModelCallEvent, () => this.#abortIfIdle());
  }

  #counted(tool: AgentTool): AgentTool {
    // A view of the tool with its own `call`: every other property reads through to the original.
    const counted = Object.create(tool) as { -readonly [K in keyof AgentTool]: AgentTool[K] };
    counted.call = async (input, context) => {
      this.#executing++;
      try {
        return await tool.call(input, context);
      } finally {
        this.#executing--;
        // After a macrotask: the runner first takes the call's result (its wait races the signal).
        if (this.#requested) setTimeout(() => this.#abortIfIdle(), 0);
      }
    };
    return counted;
  }

  #abortIfIdle(): void {
    if (this.#requested && this.#executing === 0 && !this.#controller.signal.aborted) this.#controller.abort("stopped");
  }
}
