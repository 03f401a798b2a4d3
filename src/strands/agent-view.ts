/**
 * A Strands agent as our hooks see it: the few members of our `Agent` they read (its name, its state,
 * its interrupts, its ledger and audit trail, its tools), answered from the Strands agent. One view per
 * Strands agent, so hooks that key per agent (`MaxToolCallsGuard`) see the same one on every event.
 *
 * @module
 */
import type { Agent } from "../agent/agent.js";
import type { AuditLog } from "../agent/audit/audit.js";
import { type InterruptRequest, InterruptSignal } from "../agent/interrupts/interrupt.js";
import { parseInterruptId } from "../agent/interrupts/interrupt-id.js";
import type { ExecutionLedger } from "../agent/ledger/ledger.js";
import type { JsonValue } from "../agent/messages/messages.js";
import type { AgentTool } from "../agent/tools/tools.js";
import { UserError } from "../errors.js";
import type { StrandsAgent, StrandsInterrupt, StrandsTool } from "./sdk.js";

/** What every view of one adapter shares. */
export interface ViewSettings {
  ledger: ExecutionLedger;
  audit: AuditLog | undefined;
}

/**
 * The name a question of ours is asked under on Strands: `BeforeToolCallEvent.interrupt()` makes its id
 * `hook:beforeToolCall:<toolUseId>:<name>`, the format our gate's questions have, so the gate's
 * name is kept; the ledger's outcome question (`tool:<toolUseId>:<name>` on our runner) keeps its name too.
 * @param id - Our interrupt id.
 * @returns The name to pass to Strands' `interrupt()`.
 */
export function strandsName(id: string): string {
  const parts = parseInterruptId(id);
  return parts && (parts.kind === "toolHook" || parts.kind === "tool") ? parts.name : id;
}

/** The id Strands records the question asked under {@link strandsName} with. */
function strandsId(id: string): string {
  const parts = parseInterruptId(id);
  if (parts && (parts.kind === "toolHook" || parts.kind === "tool"))
    return `hook:beforeToolCall:${parts.toolUseId}:${parts.name}`;
  return id;
}

function interruptsOf(agent: StrandsAgent): Record<string, StrandsInterrupt> {
  const state = agent._interruptState;
  if (!state || typeof state.interrupts !== "object")
    throw new UserError("kaboo-workflows/strands needs a Strands Agent (its _interruptState was not found).");
  return state.interrupts;
}

/** A Strands tool as our hooks read a tool: its name, no schema check of ours (Strands' tool checks its input). */
function toolView(tool: StrandsTool): AgentTool {
  const view = {
    name: tool.name,
    spec: { name: tool.name, description: tool.description ?? "", inputSchema: { type: "object" } },
    call: () => Promise.reject(new Error("A Strands tool runs in its own agent.")),
    strands: tool,
  };
  return view as unknown as AgentTool;
}

const tools = new WeakMap<StrandsTool, AgentTool>();

/**
 * Our view of a Strands tool (the same object each time).
 * @param tool - The Strands tool, or `undefined`.
 * @returns The view, or `undefined`.
 */
export function ourTool(tool: StrandsTool | undefined): AgentTool | undefined {
  if (!tool) return undefined;
  let view = tools.get(tool);
  if (!view) tools.set(tool, (view = toolView(tool)));
  return view;
}

/**
 * The Strands tool behind a view made by {@link ourTool}.
 * @param tool - A view, or `undefined`.
 * @returns The Strands tool, or `undefined` for a tool that is not a view.
 */
export function strandsTool(tool: AgentTool | undefined): StrandsTool | undefined {
  return (tool as { strands?: StrandsTool } | undefined)?.strands;
}

/** Where the view keeps what our hooks keep with a paused run (our runner's `interruptState.context`). */
export const PAUSED_CONTEXT_KEY = "kaboo_paused_context";

/**
 * Our runner's `interruptState.context` on a Strands agent: an object whose keys live in the agent's
 * `appState` under {@link PAUSED_CONTEXT_KEY}, so that what a hook keeps with a paused run (TracingHook's
 * asking spans) goes wherever Strands' session manager takes the agent's state.
 */
function pausedContext(agent: StrandsAgent): Record<string, unknown> {
  const read = (): Record<string, unknown> => {
    const kept = agent.appState.get(PAUSED_CONTEXT_KEY);
    return kept && typeof kept === "object" && !Array.isArray(kept) ? (kept as Record<string, unknown>) : {};
  };
  return new Proxy({} as Record<string, unknown>, {
    get: (_, key) => {
      if (typeof key !== "string") return undefined;
      const kept = read();
      return Object.hasOwn(kept, key) ? kept[key] : undefined;
    },
    set: (_, key, value) => {
      if (typeof key !== "string") return false;
      agent.appState.set(PAUSED_CONTEXT_KEY, { ...read(), [key]: value });
      return true;
    },
  });
}

/**
 * Makes our view of a Strands agent.
 * @param agent - The Strands agent.
 * @param settings - The adapter's ledger and audit trail.
 * @returns The view; its `interruptState.raise` returns an answer Strands holds, or throws our `InterruptSignal`
 *   (the adapter turns it into Strands' own interrupt at the event).
 */
export function agentView(agent: StrandsAgent, settings: ViewSettings): Agent {
  // Own keys only: an id such as "constructor" must not read Object.prototype as an interrupt.
  const held = (id: string) => {
    const all = interruptsOf(agent);
    const key = strandsId(id);
    return Object.hasOwn(all, key) ? all[key] : undefined;
  };
  const interrupts = {
    get(id: string) {
      const found = held(id);
      return (
        found && { id, name: found.name, reason: found.reason as JsonValue, response: found.response as JsonValue }
      );
    },
    /** Whether the question was asked already (four eyes asks each round once, and audits it once). */
    has: (id: string) => held(id) !== undefined,
  };
  const view = {
    name: agent.name ?? "",
    // Read when an invocation or a model call starts (TracingHook's gen_ai.request.model): the model of that moment.
    get model() {
      return { modelId: agent.model?.modelId ?? "" };
    },
    ledger: settings.ledger,
    audit: settings.audit,
    state: {
      get: (key: string) => agent.appState.get(key),
      set: (key: string, value: unknown) => agent.appState.set(key, value),
    },
    interruptState: {
      interrupts,
      context: pausedContext(agent),
      raise(id: string, request: InterruptRequest): JsonValue {
        const stored = interrupts.get(id);
        if (stored?.response !== undefined) return stored.response;
        if (request.response !== undefined) return request.response;
        const interrupt = {
          id,
          name: request.name,
          ...(request.reason === undefined ? {} : { reason: request.reason }),
        };
        throw new InterruptSignal(interrupt);
      },
    },
    tool: (name: string) => ourTool(agent.toolRegistry.get(name)),
    toolNames: () => (agent.toolRegistry.list?.() ?? []).map((t) => t.name),
  };
  // Only the members above are read by the hooks this adapter runs (see the README's Strands table).
  return view as unknown as Agent;
}
