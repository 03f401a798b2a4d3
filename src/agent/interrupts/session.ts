/**
 * The paused session: what a paused run hands its host to carry across a reload or a request
 * (`{ interrupt_state, delegates }`, wire names of the Python package), the per-run
 * {@link SessionExchange} that holds it while a run is under way, and the readers everyone else
 * uses (the open interrupts, the paused calls, whether a snapshot is older than a transcript).
 * The shape is built and read here and nowhere else.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { formatIssues } from "../tools/issues.js";
import { looseObject, recordOf, sizedString } from "../shared/lean-schemas.js";
import { defaultLogger, type Logger } from "../../logger.js";
import type { Agent } from "../agent.js";
import { jsonValueSchema, type InterruptState, type InterruptStateJson } from "./interrupt.js";
import { withinDepth } from "../shared/json-depth.js";
import type { JsonObject, JsonValue, Message } from "../messages/messages.js";
import { pausedCallIds } from "./paused-calls.js";
import { isObject } from "../shared/guards.js";

/** Key of the AG-UI state (and of a thread store's record) that carries the paused session. */
export const SESSION_STATE_KEY = "kaboo_session";

/**
 * What a client sends back (and receives) to carry a paused session across a
 * reload. Wire names as in the Python package. `interrupt_state` is checked
 * fully (version, shape) only when it is restored.
 */
export interface SessionSnapshotIn {
  interrupt_state?: unknown;
  delegates?: Record<string, JsonValue>;
}

/** What a run sends out for its paused session (wire names of the Python package). */
export interface SessionSnapshot {
  interrupt_state: InterruptStateJson;
  /** Present only when there are delegate snapshots. */
  delegates?: Record<string, JsonValue>;
}

const inboundSchema = looseObject({
  interrupt_state: z.optional(z.unknown()),
  delegates: z.optional(recordOf(jsonValueSchema)),
});

// The client "sent state" when it sent something shaped like one; whether it is
// valid is decided by InterruptState.fromJSON at restore time.
const stateLike = looseObject({ interrupts: recordOf(z.unknown()) });

/**
 * One run's exchange between the host and the session-state functions:
 * what the client sent, whether this run resumes, and the agent whose state
 * the outgoing snapshot serialises.
 */
export class SessionExchange {
  /** The snapshot the client sent (validated; `{}` when absent or malformed). */
  readonly inbound: SessionSnapshotIn;
  /** Whether this run answers interrupts (AG-UI `resume`), set by the host. */
  resuming: boolean;
  /** Whether the inbound state was already restored (or refused) in this run. */
  restored = false;
  /** The agent that reached invocation last; its state is what the snapshot sends. */
  agent: Agent | undefined = undefined;
  /** Whether this run publishes its open requests to the host (set once an agent is recorded). */
  publishesApprovals = false;
  /** Snapshots of delegate agents, by name, sent back under `delegates`. */
  delegates: Record<string, JsonValue>;

  /**
   * @param inbound - The client's snapshot, as received (untrusted).
   * @param resuming - Whether the run resumes a paused one.
   * @param logger - Where a malformed snapshot is reported. Default `console`.
   */
  constructor(inbound: unknown, resuming: boolean, logger: Logger = defaultLogger) {
    this.inbound = parseSessionSnapshot(inbound, logger);
    this.resuming = resuming;
    this.delegates = { ...(this.inbound.delegates ?? {}) };
  }

  /** The interrupt state the client sent, unchecked (`InterruptState.fromJSON` checks it on restore). */
  get inboundInterruptState(): unknown {
    return this.inbound.interrupt_state;
  }

  /** Whether the client sent something shaped like an interrupt state (then a clean one goes back, to clear it). */
  get sentInterruptState(): boolean {
    return isInterruptStateLike(this.inbound.interrupt_state);
  }

  /**
   * The outgoing paused session.
   * @param interruptState - A JSON copy of the agent's interrupt state.
   * @returns `{ interrupt_state, delegates? }`, the delegates copied.
   */
  snapshot(interruptState: InterruptStateJson): SessionSnapshot {
    return sessionSnapshot(interruptState, this.delegates);
  }

  /**
   * A paused delegate's saved state for one call.
   * @param name - The delegate's tool name.
   * @param toolUseId - The parent's call that resumes it.
   * @returns Its interrupt state and transcript, or `undefined` when missing, malformed or another call's.
   */
  pausedDelegate(name: string, toolUseId: string): { interruptState: unknown; messages: Message[] } | undefined {
    return readDelegateSnapshot(Object.hasOwn(this.delegates, name) ? this.delegates[name] : undefined, toolUseId);
  }

  /** Saves a paused delegate (a JSON copy of its interrupt state and transcript) under its tool name. */
  saveDelegate(name: string, toolUseId: string, agent: Pick<Agent, "interruptState" | "messages">): void {
    this.delegates[name] = delegateSnapshot(toolUseId, agent);
  }

  /** Forgets a delegate's saved state (it finished). */
  dropDelegate(name: string): void {
    delete this.delegates[name];
  }
}

/**
 * Reads a client's paused session. A corrupt one must not cost the person their conversation:
 * it is logged and read as empty (the run starts clean).
 * @param inbound - As received (untrusted).
 * @param logger - Default `console`.
 * @returns The snapshot's parts; `{}` when absent or malformed.
 */
export function parseSessionSnapshot(inbound: unknown, logger: Logger = defaultLogger): SessionSnapshotIn {
  if (inbound === undefined || inbound === null) return {};
  if (!withinDepth(inbound)) {
    logger.warn("kaboo: ignoring a session snapshot nested too deep; starting clean.");
    return {};
  }
  const parsed = inboundSchema.safeParse(inbound);
  if (parsed.success) {
    const out: SessionSnapshotIn = {};
    if (parsed.data.interrupt_state !== undefined) out.interrupt_state = parsed.data.interrupt_state;
    if (parsed.data.delegates !== undefined) out.delegates = parsed.data.delegates;
    return out;
  }
  logger.warn(`kaboo: ignoring a malformed session snapshot; starting clean. ${formatIssues(parsed.error.issues)}`);
  return {};
}

/**
 * Whether a session's `interrupt_state` is shaped like one (an `interrupts` record): then the
 * client sent state, and a clean state must go back to clear it.
 * @param value - An `interrupt_state` as received.
 */
export function isInterruptStateLike(value: unknown): boolean {
  return stateLike.safeParse(value).success;
}

/**
 * The outgoing paused session.
 * @param interruptState - A JSON copy of the agent's interrupt state.
 * @param delegates - Delegate snapshots by name; left out when empty.
 * @returns `{ interrupt_state, delegates? }`.
 */
export function sessionSnapshot(
  interruptState: InterruptStateJson,
  delegates: Readonly<Record<string, JsonValue>>,
): SessionSnapshot {
  const snapshot: SessionSnapshot = { interrupt_state: interruptState };
  if (Object.keys(delegates).length > 0) snapshot.delegates = structuredClone(delegates) as Record<string, JsonValue>;
  return snapshot;
}

function interruptStateOf(session: unknown): Record<string, unknown> | undefined {
  const state = isObject(session) ? session.interrupt_state : undefined;
  return isObject(state) ? state : undefined;
}

/**
 * Ids of a stored session's unanswered interrupts. A failed resume keeps its pause with its answers
 * (what finished is recorded): its retry sends them again, so a pause with no open question names
 * all of its interrupts (the agent takes each only with the same answer).
 * @param session - A paused session (a thread store's record; `null` when nothing waits).
 * @returns Interrupt ids; `[]` when the session holds none.
 */
export function pendingInterruptIds(session: unknown): string[] {
  const state = interruptStateOf(session);
  const interrupts = state?.interrupts;
  if (!isObject(interrupts)) return [];
  const open = Object.entries(interrupts).flatMap(([id, i]) => (isObject(i) && i.response === undefined ? [id] : []));
  return open.length === 0 && state?.activated === true ? Object.keys(interrupts) : open;
}

/**
 * Whether every one of `ids` is an open question of the session that any eligible person may answer
 * (a four-eyes approval request: its reason carries `approvals`), read leniently.
 * @param session - A paused session (the server's own record).
 * @param ids - Interrupt ids a resume answers.
 * @returns `false` when `ids` is empty or any of them is not such a question.
 */
export function onlyQuorumQuestions(session: unknown, ids: readonly string[]): boolean {
  return quorumQuestions(session, ids) !== undefined;
}

/**
 * The questions (their reasons) of {@link onlyQuorumQuestions}, when every one of `ids` is one.
 * @param session - A paused session (the server's own record).
 * @param ids - Interrupt ids a resume answers.
 * @returns One reason per id, or `undefined` when `ids` is empty or any of them is not such a question.
 */
export function quorumQuestions(session: unknown, ids: readonly string[]): JsonObject[] | undefined {
  const interrupts = interruptStateOf(session)?.interrupts;
  if (!isObject(interrupts) || ids.length === 0) return undefined;
  const out: JsonObject[] = [];
  for (const id of ids) {
    const i = Object.hasOwn(interrupts, id) ? interrupts[id] : undefined;
    const reason = isObject(i) && i.response === undefined ? i.reason : undefined;
    if (!isObject(reason) || !isObject(reason.approvals)) return undefined;
    out.push(reason as JsonObject);
  }
  return out;
}

/**
 * Whether a session holds a pause (its interrupt state is activated), read leniently.
 * @param session - A paused session, as received or stored.
 */
export function sessionHoldsPause(session: unknown): boolean {
  return interruptStateOf(session)?.activated === true;
}

/**
 * The ids of the calls a session holds as paused, read leniently (a client's copy may be stale or
 * damaged; a damaged one names no calls).
 * @param session - A paused session, as received.
 * @returns `toolUseId`s in order; `[]` when there are none.
 */
export function sessionPausedCallIds(session: unknown): string[] {
  return pausedCallIds(interruptStateOf(session)?.context);
}

/**
 * A call of a paused state that the transcript already holds: the runner appends a paused batch
 * only once it completes, so such a state is older than the transcript, and restoring it would
 * bring back a gate that was answered (and run its tool twice).
 * @param state - A restored interrupt state.
 * @param messages - The agent's transcript.
 * @returns The first such call's id, or `undefined` when the state is not stale.
 */
export function staleCallId(state: InterruptState, messages: readonly Message[]): string | undefined {
  const ids = new Set(pausedCallIds(state.context));
  if (ids.size === 0) return undefined;
  for (const message of messages) {
    for (const block of message.content) {
      if ((block.type === "toolUse" || block.type === "toolResult") && ids.has(block.toolUseId)) return block.toolUseId;
    }
  }
  return undefined;
}

/** What a delegate keeps in `SessionExchange.delegates[name]` while it is paused (JSON). */
export interface DelegateSnapshot {
  tool_use_id: string;
  interrupt_state: JsonValue;
  messages: JsonValue;
}

const delegateSchema = z.object({
  tool_use_id: sizedString(1),
  interrupt_state: z.unknown(),
  messages: z.array(looseObject({ role: z.literal(["user", "assistant"]), content: z.array(z.unknown()) })),
});

/**
 * A paused delegate's entry of the session.
 * @param toolUseId - The parent's call that runs the delegate.
 * @param agent - The paused delegate.
 * @returns A JSON copy of its interrupt state and transcript.
 */
export function delegateSnapshot(toolUseId: string, agent: Pick<Agent, "interruptState" | "messages">): JsonObject {
  const snap: DelegateSnapshot = {
    tool_use_id: toolUseId,
    interrupt_state: JSON.parse(JSON.stringify(agent.interruptState)) as JsonValue,
    messages: JSON.parse(JSON.stringify(agent.messages)) as JsonValue,
  };
  return { ...snap };
}

/**
 * Reads a delegate's entry for one call.
 * @param saved - `SessionExchange.delegates[name]` (untrusted).
 * @param toolUseId - The call that resumes.
 * @returns Its interrupt state (unchecked: `InterruptState.fromJSON` checks it) and transcript, or
 *   `undefined` when the entry is missing, malformed or belongs to another call.
 */
export function readDelegateSnapshot(
  saved: JsonValue | undefined,
  toolUseId: string,
): { interruptState: unknown; messages: Message[] } | undefined {
  const parsed = withinDepth(saved) ? delegateSchema.safeParse(saved) : undefined;
  if (!parsed?.success || parsed.data.tool_use_id !== toolUseId) return undefined;
  return { interruptState: parsed.data.interrupt_state, messages: parsed.data.messages as unknown as Message[] };
}
