/**
 * The stream side of the EventPublisher: runner stream events (and orchestrator handoffs) to
 * `TOKEN`, `TOOL_INPUT`, `REASONING` and `HANDOFF`.
 *
 * @module
 */
import type { InvocationState } from "../../agent/events.js";
import type { AgentStreamEvent } from "../../agent/stream-events.js";
import { resolveToolLabel } from "./helpers.js";
import { EventType, type MultiAgentHandoffEvent, type StreamEventData } from "./types.js";

/** Options of `EventPublisher.asCallbackHandler`. */
export interface StreamHandlerOptions {
  /** The conversation the handled stream belongs to. Default: read from `invocationState`, else none. */
  threadId?: string;
  /** The run the handled stream belongs to. Default: read from `invocationState`, else none. */
  runId?: string;
  /** The run's `invocationState`, to read `threadId` / `runId` from (THREAD_ID_KEY, RUN_ID_KEY). */
  invocationState?: InvocationState;
}

/** Takes each runner stream event or handoff; publishes what it maps to. Never throws. */
export type StreamHandler = (event: AgentStreamEvent | MultiAgentHandoffEvent) => void;

interface OpenToolCall {
  toolUseId: string;
  name: string;
  label: string | null;
  input: string;
}

/** What the handler needs from its publisher. */
export interface StreamHandlerContext {
  labels: Readonly<Record<string, string>>;
  /** Enriches and publishes one event. */
  emit(type: EventType, data: StreamEventData): void;
}

/**
 * Makes a handler for one run's stream.
 * @param ctx - The publisher's labels and emitter.
 * @returns The handler.
 */
export function createStreamHandler(ctx: StreamHandlerContext): StreamHandler {
  // Open tool calls of the current model response, by content-block index.
  let open = new Map<number, OpenToolCall>();
  return function handleStreamEvent(event) {
    if (event === null || typeof event !== "object") return;
    if (event.type === "multiagent_handoff") {
      ctx.emit(EventType.HANDOFF, {
        from_node_ids: stringList(event.fromNodeIds),
        to_node_ids: stringList(event.toNodeIds),
        message: event.message ?? null,
      });
      return;
    }
    if (event.type !== "model") return;
    const m = event.event;
    if (m === null || typeof m !== "object") return;
    switch (m.type) {
      case "contentBlockDelta": {
        const d = m.delta;
        if (d.type === "text") {
          if (typeof d.text === "string" && d.text) ctx.emit(EventType.TOKEN, { text: d.text });
        } else if (d.type === "reasoning") {
          // Signature-only and redacted deltas carry nothing a person can read.
          if (typeof d.text === "string" && d.text) ctx.emit(EventType.REASONING, { text: d.text });
        } else if (d.type === "toolUseInput") {
          const call = open.get(m.index);
          if (!call || typeof d.input !== "string") return;
          call.input += d.input;
          ctx.emit(EventType.TOOL_INPUT, {
            tool_use_id: call.toolUseId,
            tool_name: call.name,
            tool_label: call.label,
            input: call.input,
          });
        }
        return;
      }
      case "contentBlockStart":
        if (m.start?.type === "toolUse" && typeof m.start.toolUseId === "string" && m.start.toolUseId) {
          const name = typeof m.start.name === "string" ? m.start.name : "";
          open.set(m.index, {
            toolUseId: m.start.toolUseId,
            name,
            label: resolveToolLabel(name, ctx.labels),
            input: "",
          });
        }
        return;
      case "contentBlockStop":
        open.delete(m.index);
        return;
      case "messageStart":
        // A retried or next model call reuses block indices.
        if (open.size) open = new Map();
        return;
      default:
        return;
    }
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
