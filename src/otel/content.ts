/**
 * Content capture (opt-in): the transcript, the model's answer, a call's arguments and result, as the GenAI
 * conventions shape them on span attributes (JSON strings of `{ role, parts: [{ type, … }] }` messages).
 * Media is never copied: an image or document part carries its kind and media type only.
 *
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#capturing-instructions-inputs-and-outputs
 * @module
 */
import type { ContentBlock, Message, ToolResultContent } from "../agent/messages/messages.js";
import type { ModelStopReason } from "../agent/model.js";

/** The conventions' finish reasons for the runner's stop reasons. */
export const FINISH_REASONS: Record<ModelStopReason, string> = {
  endTurn: "stop",
  toolUse: "tool_calls",
  maxTokens: "length",
  stopSequence: "stop",
  contentFiltered: "content_filter",
};

type Part = Record<string, unknown>;

function part(block: ContentBlock): Part {
  switch (block.type) {
    case "text":
      return { type: "text", content: block.text };
    case "reasoning":
      return { type: "reasoning", content: block.text };
    case "toolUse":
      return { type: "tool_call", id: block.toolUseId, name: block.name, arguments: block.input };
    case "toolResult":
      return { type: "tool_call_response", id: block.toolUseId, response: resultContent(block.content) };
    case "image":
    case "document":
      return { type: block.type, mime_type: block.mimeType };
    default: {
      const never: never = block;
      return { type: String((never as { type?: unknown }).type) };
    }
  }
}

/** A tool result's parts with media reduced to its kind and type (bytes never go on a span). */
export function resultContent(content: readonly ToolResultContent[]): unknown[] {
  return content.map((c) =>
    c.type === "text" ? c.text : c.type === "json" ? c.json : { type: c.type, mime_type: c.mimeType },
  );
}

/** One message in the conventions' shape. */
function conventionMessage(message: Message, finishReason?: string): Part {
  const out: Part = { role: message.role, parts: message.content.map(part) };
  if (finishReason !== undefined) out.finish_reason = finishReason;
  return out;
}

/** `gen_ai.input.messages`: the transcript as sent (before model-input middleware rewrote its copy). */
export function inputMessages(messages: readonly Message[]): string {
  return JSON.stringify(messages.map((m) => conventionMessage(m)));
}

/** `gen_ai.output.messages`: the model's answer with its finish reason. */
export function outputMessages(message: Message, stopReason: ModelStopReason): string {
  return JSON.stringify([conventionMessage(message, FINISH_REASONS[stopReason])]);
}

/** `gen_ai.system_instructions`: the system prompt as one text part. */
export function systemInstructions(prompt: string): string {
  return JSON.stringify([{ type: "text", content: prompt }]);
}

/** JSON of a value for an attribute, or its `String()` when it is not JSON (a cycle, a bigint). */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
