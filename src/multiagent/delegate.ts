/**
 * Delegates: another agent as a tool of this one, with its approvals surfacing in the parent.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import type { Agent } from "../agent/agent.js";
import {
  InterruptSignal,
  InterruptState,
  type Interrupt,
  type InterruptResponse,
} from "../agent/interrupts/interrupt.js";
import { messageText, type JsonValue, type Message } from "../agent/messages/messages.js";
import { tool, type AgentTool, type ToolAnnotations, type ToolContext } from "../agent/tools/tools.js";
import { UserError } from "../errors.js";
import { isCallInterrupt, repeatedInterruptName } from "../agent/interrupts/interrupt-id.js";
import { runContext } from "../agent/run-context.js";

export type { DelegateSnapshot } from "../agent/interrupts/session.js";

/** Options of {@link agentAsTool}. */
export interface AgentAsToolOptions<S extends z.ZodMiniType> {
  /** Tool name; also the key of the delegate's entry in the snapshot's `delegates`. */
  name: string;
  description: string;
  /** Input schema. Default `z.object({ task: z.string() })`; other schemas send the input as JSON text. */
  inputSchema?: S;
  annotations?: ToolAnnotations;
}

/**
 * Makes `agent` a tool (kind `"agent"`, so ContextHook and HistoryPolicy keep its results).
 * The tool runs the agent on the task and returns its final text.
 *
 * **Approvals inside the delegate.** When the delegate pauses, the tool raises one parent
 * interrupt per open question (`tool:<toolUseId>:<name>`, the delegate's interrupt name,
 * `#2`, `#3` … for repeats within one pause) with the delegate's `reason` unchanged, so a host
 * shows the same approval. On resume the parent re-runs this call, which hands the answers to
 * the delegate under its own interrupt ids: the delegate continues where it stopped, and its
 * gated tool runs once. While paused, the delegate's interrupt state and transcript sit in the
 * run's session exchange under `delegates[name]` (so `sessionStateSnapshot` carries them); a
 * fresh delegate restores from there when the parent resumes. The delegate runs with the
 * parent's `invocationState` minus the session exchange (the snapshot belongs to the parent)
 * and with `delegationId` = the call's id.
 *
 * @param agent - The delegate. It runs one call at a time (concurrent calls fail as "already running").
 * @param options - `name`, `description`, `inputSchema` (default `{ task: string }`), `annotations`.
 * @returns An {@link AgentTool} of kind `"agent"`.
 * @example
 * ```ts
 * const researcher = new Agent({ name: "researcher", model, tools: [search], hooks: [new InterruptHook(["search"])] });
 * const lead = new Agent({ model, tools: [agentAsTool(researcher, { name: "research", description: "Researches a topic." })] });
 * ```
 */
export function agentAsTool<S extends z.ZodMiniType = z.ZodMiniObject<{ task: z.ZodMiniString }>>(
  agent: Agent,
  options: AgentAsToolOptions<S>,
): AgentTool {
  if (!agent || typeof agent.invoke !== "function") throw new UserError("agentAsTool needs an Agent.");
  const name = options.name;
  const schema = (options.inputSchema ?? z.object({ task: z.string() })) as S;
  const base = tool({
    name,
    description: options.description,
    inputSchema: schema,
    ...(options.annotations ? { annotations: options.annotations } : {}),
    callback: async (input, ctx) => runDelegate(agent, name, taskOf(input), ctx),
  });
  return { ...base, kind: "agent" };
}

function taskOf(input: unknown): string {
  const task = (input as { task?: unknown } | null)?.task;
  return typeof task === "string" && Object.keys(input as object).length === 1 ? task : JSON.stringify(input);
}

async function runDelegate(agent: Agent, name: string, task: string, ctx: ToolContext): Promise<string> {
  const toolUseId = ctx.toolUse.toolUseId;
  const exchange = runContext.sessionExchange.find(ctx.invocationState);
  const parentAsked = [...ctx.agent.interruptState.interrupts.keys()].some((id) =>
    isCallInterrupt(id, toolUseId, ["tool"]),
  );
  if (parentAsked && !agent.interruptState.activated)
    restore(agent, exchange?.pausedDelegate(name, toolUseId), toolUseId);
  // A pause this call does not answer belongs to a call the parent gave up (cancelled, discarded):
  // it will never be answered, and keeping it would refuse every later task.
  if (!parentAsked && agent.interruptState.activated) agent.discardInterrupts();
  const childState = runContext.delegationId.with(ctx.invocationState, toolUseId);
  runContext.sessionExchange.delete(childState);
  let input: string | InterruptResponse[] = task;
  if (parentAsked && agent.interruptState.activated) {
    // The answers were given to the parent's interrupts; read them back under the delegate's ids.
    input = askParent(ctx, agent.interruptState.pending()).map(({ inner, response }) => ({
      interruptResponse: { interruptId: inner.id, response },
    }));
    for (const id of [...ctx.agent.interruptState.interrupts.keys()])
      if (isCallInterrupt(id, toolUseId, ["tool"])) ctx.agent.interruptState.interrupts.delete(id);
  }
  const result = await agent.invoke(input, { invocationState: childState, signal: ctx.signal });
  if (result.stopReason === "interrupt") {
    exchange?.saveDelegate(name, toolUseId, agent);
    askParent(ctx, result.interrupts);
  }
  exchange?.dropDelegate(name);
  return messageText(result.message);
}

/** Raises (or, on resume, reads the answers of) one parent interrupt per delegate interrupt. */
function askParent(ctx: ToolContext, inner: readonly Interrupt[]): { inner: Interrupt; response: JsonValue }[] {
  const seen = new Map<string, number>();
  const answers: { inner: Interrupt; response: JsonValue }[] = [];
  let pause: InterruptSignal | undefined;
  for (const i of inner) {
    const n = (seen.get(i.name) ?? 0) + 1;
    seen.set(i.name, n);
    try {
      const response = ctx.interrupt({
        name: repeatedInterruptName(i.name, n),
        ...(i.reason !== undefined ? { reason: i.reason } : {}),
      });
      answers.push({ inner: i, response });
    } catch (error) {
      // Record every question before pausing, so the host sees them all at once.
      if (error instanceof InterruptSignal) pause ??= error;
      else throw error;
    }
  }
  if (pause) throw pause;
  return answers;
}

function restore(
  agent: Agent,
  snap: { interruptState: unknown; messages: Message[] } | undefined,
  toolUseId: string,
): void {
  if (!snap)
    throw new UserError(`The delegate's paused state for call ${toolUseId} is missing or malformed; it cannot resume.`);
  agent.interruptState = InterruptState.fromJSON(snap.interruptState);
  if (agent.messages.length === 0) agent.messages = snap.messages;
}
