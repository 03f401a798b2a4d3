/**
 * The runner's messages and tool specs in the Anthropic Messages wire format.
 *
 * @module
 */
import type { ContentBlock, DocumentBlock, ImageBlock, Message, ToolResultBlock } from "../agent/messages/messages.js";
import { decodeBase64Text, documentAsText, isTextDocument, mediaNote } from "./media.js";
import type { ToolSpec } from "../agent/model.js";
import { isObject } from "../agent/shared/guards.js";

/** A content block of the Messages API (the subset this package sends). */
export type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: AnthropicSource }
  | { type: "document"; source: AnthropicSource; title?: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content?: AnthropicBlock[]; is_error?: boolean }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/** Where media comes from. */
export type AnthropicSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: "text"; media_type: "text/plain"; data: string };

/** One message of the Messages API. */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/** A tool as the Messages API wants it. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ToolSpec["inputSchema"];
}

/**
 * Converts the conversation to Messages API messages.
 *
 * Consecutive messages of one role are merged (the API wants turns to
 * alternate), tool results lead their user turn (the API wants them first),
 * empty messages are dropped, and reasoning is sent back only with its
 * signature (the API rejects unsigned thinking).
 *
 * @param messages - The runner's messages.
 * @returns The wire messages.
 */
export function toAnthropicMessages(messages: readonly Message[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const message of messages) {
    const content = message.role === "assistant" ? assistantBlocks(message.content) : userBlocks(message.content);
    if (content.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === message.role) {
      last.content =
        message.role === "user" ? toolResultsFirst([...last.content, ...content]) : [...last.content, ...content];
    } else out.push({ role: message.role, content });
  }
  return out;
}

function assistantBlocks(content: readonly ContentBlock[]): AnthropicBlock[] {
  const out: AnthropicBlock[] = [];
  for (const block of content) {
    if (block.type === "text") {
      // The API rejects empty text blocks.
      if (block.text) out.push({ type: "text", text: block.text });
    } else if (block.type === "reasoning") {
      if (block.redacted) out.push({ type: "redacted_thinking", data: block.redacted });
      else if (block.signature) out.push({ type: "thinking", thinking: block.text, signature: block.signature });
    } else if (block.type === "toolUse") {
      // A string input means the arguments did not parse; the API only takes an object,
      // and the error result that answers the call tells the model what went wrong.
      const input = isObject(block.input) ? block.input : {};
      out.push({ type: "tool_use", id: block.toolUseId, name: block.name, input });
    }
  }
  return out;
}

function userBlocks(content: readonly ContentBlock[]): AnthropicBlock[] {
  const out: AnthropicBlock[] = [];
  for (const block of content) {
    if (block.type === "text") {
      if (block.text) out.push({ type: "text", text: block.text });
    } else if (block.type === "image" || block.type === "document") out.push(mediaBlock(block));
    else if (block.type === "toolResult") out.push(toolResult(block));
  }
  return toolResultsFirst(out);
}

function toolResultsFirst(blocks: AnthropicBlock[]): AnthropicBlock[] {
  const results = blocks.filter((b) => b.type === "tool_result");
  return results.length === 0 || results.length === blocks.length
    ? blocks
    : [...results, ...blocks.filter((b) => b.type !== "tool_result")];
}

function toolResult(block: ToolResultBlock): AnthropicBlock {
  const content: AnthropicBlock[] = [];
  for (const part of block.content) {
    if (part.type === "text") {
      if (part.text) content.push({ type: "text", text: part.text });
    } else if (part.type === "json") content.push({ type: "text", text: JSON.stringify(part.json) });
    else content.push(mediaBlock(part));
  }
  const result: AnthropicBlock = { type: "tool_result", tool_use_id: block.toolUseId };
  // An empty content list is omitted rather than sent: the field is optional.
  if (content.length) result.content = content;
  if (block.status === "error") result.is_error = true;
  return result;
}

function mediaBlock(block: ImageBlock | DocumentBlock): AnthropicBlock {
  if (block.type === "image") {
    if (block.data !== undefined)
      return { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } };
    if (block.url && /^https?:/.test(block.url)) return { type: "image", source: { type: "url", url: block.url } };
    return { type: "text", text: mediaNote(block, "no inline data or https URL") };
  }
  const titled = (b: Extract<AnthropicBlock, { type: "document" }>): AnthropicBlock =>
    block.name ? { ...b, title: block.name } : b;
  if (block.mimeType === "application/pdf") {
    if (block.data !== undefined)
      return titled({ type: "document", source: { type: "base64", media_type: "application/pdf", data: block.data } });
    if (block.url && /^https?:/.test(block.url))
      return titled({ type: "document", source: { type: "url", url: block.url } });
  }
  if (isTextDocument(block.mimeType) && block.data !== undefined) {
    const text = decodeBase64Text(block.data);
    if (text !== undefined)
      return titled({ type: "document", source: { type: "text", media_type: "text/plain", data: text } });
  }
  return { type: "text", text: documentAsText(block) };
}

/**
 * Converts tool specs to Messages API tools.
 * @param specs - The runner's tool specs.
 * @returns `[{ name, description, input_schema }]`.
 */
export function toAnthropicTools(specs: readonly ToolSpec[]): AnthropicTool[] {
  return specs.map((s) => ({ name: s.name, description: s.description, input_schema: s.inputSchema }));
}
