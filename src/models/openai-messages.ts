/**
 * The runner's messages and tool specs in the OpenAI chat-completions wire format.
 *
 * @module
 */
import type { ContentBlock, Message, ToolResultBlock } from "../agent/messages/messages.js";
import { documentAsText, mediaUrl } from "./media.js";
import type { ToolSpec } from "../agent/model.js";

/** A part of a user message. */
export type OpenAIContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** A tool call of an assistant message. */
export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One chat-completions message. */
export type OpenAIMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | OpenAIContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIToolCall[]; reasoning_content?: string }
  | { role: "tool"; tool_call_id: string; content: string };

/** A tool as chat-completions wants it. */
export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: ToolSpec["inputSchema"] };
}

/** Options of {@link toOpenAIMessages}. */
export interface OpenAIMessageOptions {
  /** Send reasoning blocks back as `reasoning_content` (DeepSeek-style servers). Default `false`: dropped. */
  sendReasoning?: boolean;
}

/**
 * Converts the conversation to chat-completions messages.
 *
 * Tool results become `role: "tool"` messages right after the assistant's calls;
 * their images follow in one user message, since most servers take text only in
 * tool messages.
 *
 * @param messages - The runner's messages.
 * @param systemPrompt - Sent first as a system message, when given.
 * @param options - See {@link OpenAIMessageOptions}.
 * @returns The wire messages.
 */
export function toOpenAIMessages(
  messages: readonly Message[],
  systemPrompt: string | undefined,
  options: OpenAIMessageOptions = {},
): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  if (systemPrompt) out.push({ role: "system", content: systemPrompt });
  for (const message of messages) {
    if (message.role === "assistant") {
      const m = assistantMessage(message.content, options.sendReasoning === true);
      if (m) out.push(m);
    } else userMessages(message.content, out);
  }
  return out;
}

function assistantMessage(content: readonly ContentBlock[], sendReasoning: boolean): OpenAIMessage | undefined {
  let text = "";
  let reasoning = "";
  const calls: OpenAIToolCall[] = [];
  for (const block of content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "reasoning") reasoning += block.text;
    else if (block.type === "toolUse") {
      // A string input is the model's own unparsable arguments: sent back as they were.
      const args = typeof block.input === "string" ? block.input : JSON.stringify(block.input ?? {});
      calls.push({ id: block.toolUseId, type: "function", function: { name: block.name, arguments: args } });
    }
  }
  if (!text && calls.length === 0) return undefined;
  const m: OpenAIMessage = { role: "assistant", content: text || null };
  if (calls.length) m.tool_calls = calls;
  if (sendReasoning && reasoning) m.reasoning_content = reasoning;
  return m;
}

function userMessages(content: readonly ContentBlock[], out: OpenAIMessage[]): void {
  const parts: OpenAIContentPart[] = [];
  const toolImages: OpenAIContentPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case "text":
        parts.push({ type: "text", text: block.text });
        break;
      case "image": {
        const url = mediaUrl(block);
        if (url) parts.push({ type: "image_url", image_url: { url } });
        break;
      }
      case "document":
        parts.push({ type: "text", text: documentAsText(block) });
        break;
      case "toolResult":
        out.push({ role: "tool", tool_call_id: block.toolUseId, content: toolResultContent(block, toolImages) });
        break;
      case "toolUse":
      case "reasoning":
        break;
      default: {
        const never: never = block;
        void never;
      }
    }
  }
  if (toolImages.length) parts.unshift(...toolImages);
  if (parts.length === 0) return;
  if (parts.every((p) => p.type === "text"))
    out.push({ role: "user", content: parts.map((p) => (p as { text: string }).text).join("\n") });
  else out.push({ role: "user", content: parts });
}

function toolResultContent(block: ToolResultBlock, images: OpenAIContentPart[]): string {
  const texts: string[] = [];
  for (const part of block.content) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "json") texts.push(JSON.stringify(part.json));
    else if (part.type === "document") texts.push(documentAsText(part));
    else {
      const url = mediaUrl(part);
      if (!url) continue;
      if (images.length === 0) images.push({ type: "text", text: "Images returned by tool calls:" });
      images.push({
        type: "text",
        text: `[image from tool call ${block.toolUseId}${part.name ? `: ${part.name}` : ""}]`,
      });
      images.push({ type: "image_url", image_url: { url } });
      texts.push(`[image ${part.name ?? part.mimeType}: sent in the next user message]`);
    }
  }
  const text = texts.join("\n");
  // Several servers reject an empty tool message; the model still needs to see the call answered.
  const body = text === "" ? "(no output)" : text;
  return block.status === "error" && !/^error\b/i.test(body) ? `Error: ${body}` : body;
}

/**
 * Converts tool specs to chat-completions tools.
 * @param specs - The runner's tool specs.
 * @returns `[{ type: "function", function: { name, description, parameters } }]`.
 */
export function toOpenAITools(specs: readonly ToolSpec[]): OpenAITool[] {
  return specs.map((s) => ({
    type: "function",
    function: { name: s.name, description: s.description, parameters: s.inputSchema },
  }));
}
