/**
 * The per-run session exchange: what the client sent to resume a paused session, and what the
 * run sends back. The run context (`agent/run-context.ts`) keeps it in `invocationState`.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { withinDepth } from "../../agent/json-depth.js";
import { defaultLogger, type Logger } from "../../logger.js";
import type { Agent } from "../../agent/agent.js";
import { jsonValueSchema } from "../../agent/interrupt.js";
import type { JsonValue } from "../../agent/messages.js";

/**
 * What a client sends back (and receives) to carry a paused session across a
 * reload. Wire names as in the Python package. `interrupt_state` is checked
 * fully (version, shape) only when it is restored.
 */
export interface SessionSnapshotIn {
  interrupt_state?: unknown;
  delegates?: Record<string, JsonValue>;
}

const inboundSchema = z.looseObject({
  interrupt_state: z.optional(z.unknown()),
  delegates: z.optional(z.record(z.string(), jsonValueSchema)),
});

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
    this.inbound = parseInbound(inbound, logger);
    this.resuming = resuming;
    this.delegates = { ...(this.inbound.delegates ?? {}) };
  }
}

function parseInbound(inbound: unknown, logger: Logger): SessionSnapshotIn {
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
  // A corrupt snapshot must not cost the person their conversation: start clean.
  logger.warn(`kaboo: ignoring a malformed session snapshot; starting clean. ${z.prettifyError(parsed.error)}`);
  return {};
}
