/**
 * Swarm: agents that pass control to each other with a `handoff_to_agent` tool.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { recordOf } from "../agent/shared/lean-schemas.js";
import type { Agent } from "../agent/agent.js";
import { AfterToolCallEvent, type InvocationState } from "../agent/events.js";
import { jsonValueSchema, type InterruptResponse } from "../agent/interrupts/interrupt.js";
import type { JsonValue } from "../agent/messages/messages.js";
import { privateRunKey } from "../agent/run-context.js";
import { tool, type AgentTool } from "../agent/tools/tools.js";
import { UserError } from "../errors.js";
import { MultiAgentBase, type MultiAgentInvokeOptions, type MultiAgentOptions } from "./base.js";
import { freshSwarmRun, limit, loadSwarmRun, pingPong, type Handoff, type SwarmRun } from "./swarm-run.js";
import { HandoffEvent, type MultiAgentResult } from "./types.js";
import { linkedAbort } from "../agent/shared/abort.js";

export type { Handoff } from "./swarm-run.js";

/** Name of the tool each swarm agent gets. */
export const HANDOFF_TOOL = "handoff_to_agent";

/** Options of {@link Swarm}. */
export interface SwarmOptions extends MultiAgentOptions {
  /** The agents (distinct names); each gets a `handoff_to_agent` tool and a hook. */
  agents: Agent[];
  /** Name of the first agent. Default: the first of `agents`. */
  entry?: string;
  /** Most handoffs per invocation. Default 20. */
  maxHandoffs?: number;
  /** Most agent runs per invocation. Default 20. */
  maxIterations?: number;
  /** Most consecutive handoffs within one pair of agents (A→B→A→…) before the swarm stops. Default 4. */
  maxPingPong?: number;
}

/** The outcome of {@link Swarm.invoke}: a {@link MultiAgentResult} plus the handoffs made. */
export interface SwarmResult extends MultiAgentResult {
  handoffs: Handoff[];
  /** Context the agents shared through their handoffs. */
  sharedContext: Record<string, JsonValue>;
}

type Pending = { to: string; message: string; context?: Record<string, JsonValue> };
/** How a swarm invocation ends, and why when it failed. */
type SwarmEnd = { stop: "paused" | "failed" | "cancelled" | "completed"; reason?: string };
/** Each running swarm's pending handoff, per run (nested swarms share the run). */
const handoffs = privateRunKey("swarmHandoffs", (v): v is Map<Swarm, Pending> => v instanceof Map);

/**
 * A swarm of agents. The entry agent gets the task; an agent that calls
 * `handoff_to_agent({ agent_name, message, context? })` ends its turn and the named agent runs
 * next with the message, the task and the shared context. The swarm completes when an agent
 * answers without handing off. It fails (with `reason`) past `maxHandoffs` or `maxIterations`,
 * or when two agents hand back and forth more than `maxPingPong` times in a row.
 *
 * @example
 * ```ts
 * const swarm = new Swarm({ name: "support", agents: [triage, billing, tech], maxHandoffs: 5 });
 * const result = await swarm.invoke("My invoice is wrong");
 * ```
 */
export class Swarm extends MultiAgentBase {
  readonly type = "swarm";
  readonly agents: ReadonlyMap<string, Agent>;
  readonly entry: string;
  readonly maxHandoffs: number;
  readonly maxIterations: number;
  readonly maxPingPong: number;

  /**
   * @param options - See {@link SwarmOptions}: `entry` = first agent, `maxHandoffs = 20`,
   *   `maxIterations = 20`, `maxPingPong = 4`, `hooks = []`, no timeouts.
   * @throws UserError for no agents, duplicate names, an unknown entry or bad limits;
   *   ToolDefinitionError when an agent already has a `handoff_to_agent` tool.
   */
  constructor(options: SwarmOptions) {
    super(options);
    if (!options.agents?.length) throw new UserError("A swarm needs at least one agent.");
    const agents = new Map<string, Agent>();
    for (const a of options.agents) {
      if (agents.has(a.name)) throw new UserError(`Two swarm agents are named "${a.name}".`);
      agents.set(a.name, a);
    }
    this.agents = agents;
    this.entry = options.entry ?? (options.agents[0] as Agent).name;
    if (!agents.has(this.entry)) throw new UserError(`Entry agent "${this.entry}" is not in the swarm.`);
    this.maxHandoffs = limit("maxHandoffs", options.maxHandoffs, 20);
    this.maxIterations = limit("maxIterations", options.maxIterations, 20);
    this.maxPingPong = limit("maxPingPong", options.maxPingPong, 4);
    for (const a of options.agents) this.#equip(a);
  }

  #equip(agent: Agent): void {
    const others = [...this.agents.keys()].filter((n) => n !== agent.name);
    const handoff: AgentTool = tool({
      name: HANDOFF_TOOL,
      description: `Hand the task to another agent of the swarm: ${others.join(", ") || "(none)"}. Your turn ends.`,
      inputSchema: z.object({
        agent_name: z.string(),
        message: z.string(),
        context: z.optional(recordOf(jsonValueSchema)),
      }),
      callback: ({ agent_name, message, context }, ctx) => {
        if (!others.includes(agent_name))
          throw new UserError(`Unknown agent "${agent_name}"; hand off to one of: ${others.join(", ")}.`);
        const pending = handoffs.find(ctx.invocationState)?.get(this);
        if (!pending) throw new UserError("handoff_to_agent works only inside a swarm run.");
        Object.assign(pending, { to: agent_name, message }, context ? { context } : {});
        return `Handing off to ${agent_name}.`;
      },
    });
    agent.addTool(handoff);
    // The handing agent's turn ends with its handoff: the next agent answers, not this one.
    agent.hooks.addCallback(AfterToolCallEvent, (e) => {
      if (e.selectedTool === handoff && e.result.status === "success") e.stopLoop = true;
    });
  }

  /**
   * Runs the swarm on `task`, or resumes it with interrupt answers.
   * @param input - The task, or `[{ interruptResponse: { interruptId, response } }]`.
   * @param options - `invocationState` (default `{}`), `signal`.
   * @returns The {@link SwarmResult}.
   */
  async invoke(input: string | InterruptResponse[], options: MultiAgentInvokeOptions = {}): Promise<SwarmResult> {
    return this.invokeWith(input, options, ({ resuming, task, invocationState, started }) =>
      this.#execute(
        resuming ? loadSwarmRun(this.interruptState.context, this.agents) : freshSwarmRun(task, this.entry),
        invocationState,
        options.signal ?? new AbortController().signal,
        started,
      ),
    );
  }

  async #execute(
    run: SwarmRun,
    invocationState: InvocationState,
    outer: AbortSignal,
    started: number,
  ): Promise<SwarmResult> {
    const controller = linkedAbort(outer);
    let timedOut = false;
    const timer =
      this.totalTimeoutMs === undefined
        ? undefined
        : setTimeout(() => ((timedOut = true), controller.abort(new Error("total timeout"))), this.totalTimeoutMs);
    const registry = handoffs.find(invocationState) ?? new Map<Swarm, Pending>();
    handoffs.set(invocationState, registry);
    let end: SwarmEnd = { stop: "completed" };
    try {
      for (;;) {
        const ended = await this.#turn(run, invocationState, controller.signal, registry);
        if (ended) {
          end = ended;
          break;
        }
      }
    } finally {
      registry.delete(this);
      if (timer !== undefined) clearTimeout(timer);
      controller.unlink();
    }
    if (timedOut) end = { stop: "failed", reason: `The swarm timed out after ${this.totalTimeoutMs} ms.` };
    else if (controller.signal.aborted && end.stop !== "paused") end = { ...end, stop: "cancelled" };
    return this.#result(run, end.stop, end.reason, started);
  }

  /** One agent's turn, then the handoff it asked for. @returns How the swarm ends, or `undefined` to go on. */
  async #turn(
    run: SwarmRun,
    invocationState: InvocationState,
    signal: AbortSignal,
    registry: Map<Swarm, Pending>,
  ): Promise<SwarmEnd | undefined> {
    const resume = run.paused ?? undefined;
    run.paused = null;
    if (!resume) {
      if (run.iterations >= this.maxIterations)
        return {
          stop: "failed",
          reason: `maxIterations (${this.maxIterations}) reached before "${run.current}" could run.`,
        };
      run.iterations++;
      run.executionOrder.push(run.current);
    }
    const pending: Pending = { to: "", message: "" };
    registry.set(this, pending);
    const count = run.executionOrder.filter((n) => n === run.current).length;
    const step = await this.executeNode({
      nodeId: run.current,
      node: this.agents.get(run.current) as Agent,
      input: resume?.input ?? run.input,
      invocationState,
      signal,
      executionId: this.executionId(invocationState, run.current, count),
      ...(resume ? { resume } : {}),
    });
    run.results[run.current] = step.result;
    if (step.kind === "paused") {
      run.paused = step.paused;
      return { stop: "paused" };
    }
    if (step.cancelled) run.cancelledNodes.push(run.current);
    if (step.result.status !== "completed") return { stop: step.cancelled ? "cancelled" : "failed" };
    if (!pending.to) return { stop: "completed" };
    return this.#handOff(run, pending, invocationState);
  }

  /** Passes control as the agent asked, within the limits. @returns How the swarm ends, or `undefined` to go on. */
  async #handOff(run: SwarmRun, pending: Pending, invocationState: InvocationState): Promise<SwarmEnd | undefined> {
    if (pending.context) Object.assign(run.sharedContext, pending.context);
    const handoff: Handoff = { from: run.current, to: pending.to, message: pending.message };
    if (run.handoffs.length >= this.maxHandoffs)
      return {
        stop: "failed",
        reason: `maxHandoffs (${this.maxHandoffs}) reached; the handoff ${handoff.from} -> ${handoff.to} was refused.`,
      };
    run.handoffs.push(handoff);
    if (pingPong(run.handoffs) > this.maxPingPong)
      return {
        stop: "failed",
        reason: `Ping-pong: "${handoff.from}" and "${handoff.to}" handed off to each other more than ${this.maxPingPong} times in a row.`,
      };
    await this.hooks.invoke(new HandoffEvent(this, invocationState, [handoff.from], [handoff.to], handoff.message));
    this.onEvent?.({
      type: "multiagent_handoff",
      fromNodeIds: [handoff.from],
      toNodeIds: [handoff.to],
      message: handoff.message,
    });
    run.current = handoff.to;
    run.input = this.#input(run, handoff);
    return undefined;
  }

  #result(run: SwarmRun, stop: string, reason: string | undefined, started: number): SwarmResult {
    const state = this.interruptState;
    if (stop === "paused") {
      state.activated = true;
      state.context = JSON.parse(JSON.stringify(run)) as typeof state.context;
    } else state.clear();
    const status =
      stop === "paused"
        ? "interrupted"
        : stop === "failed"
          ? "failed"
          : stop === "cancelled"
            ? "cancelled"
            : "completed";
    const out: SwarmResult = {
      status,
      results: structuredClone(run.results),
      executionOrder: [...run.executionOrder],
      cancelledNodes: [...run.cancelledNodes],
      interrupts: stop === "paused" ? state.pending() : [],
      durationMs: performance.now() - started,
      handoffs: structuredClone(run.handoffs),
      sharedContext: structuredClone(run.sharedContext),
    };
    if (reason !== undefined) out.reason = reason;
    return out;
  }

  #input(run: SwarmRun, h: Handoff): string {
    const context = Object.keys(run.sharedContext).length
      ? `\n\nShared context:\n${JSON.stringify(run.sharedContext)}`
      : "";
    const others = [...this.agents.keys()].filter((n) => n !== h.to).join(", ");
    return `${h.from} handed off to you: ${h.message}\n\nOriginal task: ${run.task}${context}\n\nOther agents you can hand off to: ${others}.`;
  }
}
