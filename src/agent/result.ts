/**
 * What a run returns.
 *
 * @module
 */
import type { ModelStopReason } from "./model.js";
import type { Interrupt } from "./interrupts/interrupt.js";
import type { Message } from "./messages/messages.js";
import type { AgentMetrics } from "./metrics.js";

/**
 * Why a run ended: the model's reason, or
 * `interrupt` (waiting on answers), `cancelled` (aborted) or `stopped` (a hook ended the loop).
 */
export type StopReason = ModelStopReason | "interrupt" | "cancelled" | "stopped";

/** The outcome of `agent.invoke()`. */
export interface AgentResult {
  stopReason: StopReason;
  /** The last assistant message (empty content when the run ended before the model spoke). */
  message: Message;
  /** The unanswered interrupts when `stopReason` is `interrupt`, else empty. */
  interrupts: Interrupt[];
  metrics: AgentMetrics;
}
