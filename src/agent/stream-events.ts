/**
 * What `agent.stream()` yields.
 *
 * @module
 */
import type { ModelStreamEvent } from "./model.js";
import type { Interrupt } from "./interrupts/interrupt.js";
import type { Message, ToolResultBlock, ToolUseBlock } from "./messages/messages.js";
import type { AgentResult } from "./result.js";

/** One event of an agent's stream. */
export type AgentStreamEvent =
  /** A raw event from the model (text, tool-input and reasoning deltas). */
  | { type: "model"; event: ModelStreamEvent }
  /** A tool call is about to run (after BeforeToolCall hooks). */
  | { type: "toolStart"; toolUse: ToolUseBlock }
  /** A tool call finished, was cancelled or failed. */
  | { type: "toolResult"; toolUse: ToolUseBlock; result: ToolResultBlock }
  /** The run paused on these interrupts. */
  | { type: "interrupt"; interrupts: Interrupt[] }
  /** A message was appended to the transcript. */
  | { type: "message"; message: Message }
  /** The run's result; always the last event. */
  | { type: "result"; result: AgentResult };
