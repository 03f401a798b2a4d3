/**
 * AG-UI messages ↔ runner messages.
 *
 * AG-UI keeps one message per tool result and reasoning as its own message;
 * the runner keeps tool results in one user message per model response and
 * reasoning as a block of the assistant message. Ids survive both ways.
 *
 * @module
 */
import type { ContentPart, Message as AguiMessage, ToolCall } from "@ag-ui/core";
import type {
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  Message,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from "../agent/messages/messages.js";
import { toolResultText } from "../agent/messages/messages.js";

type Part = {
  type: string;
  text?: string;
  source?: { type: string; value: string; mimeType?: string };
  metadata?: unknown;
};

/** What {@link fromAguiMessages} returns. */
export interface ConvertedMessages {
  messages: Message[];
  /** Ids of the host's tool messages, by tool call id (kept in snapshots so the front end's list stays in order). */
  toolMessageIds: Map<string, string>;
  /** Text of AG-UI system/developer messages, for the run's system prompt. */
  system: string[];
  /** Tool calls that have no result in the input (browser tools the host has not answered, or paused calls). */
  openToolCalls: string[];
}

/**
 * Converts AG-UI messages into a runner transcript that keeps the runner's invariant
 * (every toolUse has its toolResult): tool calls without a result are left out and listed.
 *
 * @param input - The run's messages (validated by the caller).
 * @param dropResultsFor - Tool call ids of a paused batch. Host results for them are ignored (a
 *   synthetic result must not stand in for the resume answer), and the assistant message holding
 *   them is left out with its reasoning: the runner re-adds it from its paused state when the batch
 *   completes, so keeping the front end's copy would put it in the transcript twice.
 */
export function fromAguiMessages(
  input: readonly AguiMessage[],
  dropResultsFor: ReadonlySet<string> = new Set(),
): ConvertedMessages {
  const results = new Map<string, ToolResultBlock>();
  const toolMessageIds = new Map<string, string>();
  for (const m of input) {
    if (m.role === "tool" && !dropResultsFor.has(m.toolCallId)) {
      results.set(m.toolCallId, toolResultFrom(m));
      toolMessageIds.set(m.toolCallId, m.id);
    }
  }
  const t: Transcript = { out: [], system: [], open: [], reasoning: [], results, dropResultsFor };
  for (const m of input) addMessage(t, m);
  return { messages: mergeUsers(t.out), toolMessageIds, system: t.system, openToolCalls: t.open };
}

/** The transcript being built from AG-UI messages. */
interface Transcript {
  out: Message[];
  system: string[];
  /** Tool calls without a result. */
  open: string[];
  /** Reasoning messages waiting for the assistant message they precede. */
  reasoning: ContentBlock[];
  results: ReadonlyMap<string, ToolResultBlock>;
  dropResultsFor: ReadonlySet<string>;
}

/** Adds one AG-UI message to the transcript. */
function addMessage(t: Transcript, m: AguiMessage): void {
  switch (m.role) {
    case "system":
    case "developer":
      if (m.content) t.system.push(m.content);
      break;
    case "user":
      t.out.push(withId({ role: "user", content: userContent(m.content) }, m.id));
      break;
    case "reasoning": {
      const block: ContentBlock = { type: "reasoning", text: m.content };
      if (m.encryptedValue) block.signature = m.encryptedValue;
      t.reasoning.push(block);
      break;
    }
    case "assistant":
      addAssistant(t, m);
      break;
    case "tool": // paired above
    case "activity": // UI-only
      break;
    default:
      // A role this version does not know is skipped, never fatal (the input comes from a client).
      m satisfies never;
      break;
  }
}

/** An assistant message with its reasoning, and the results of its calls; calls without one stay open. */
function addAssistant(t: Transcript, m: Extract<AguiMessage, { role: "assistant" }>): void {
  const reasoning = t.reasoning;
  t.reasoning = [];
  if (m.toolCalls?.some((c) => t.dropResultsFor.has(c.id))) return;
  const content: ContentBlock[] = [...reasoning];
  if (m.content) content.push({ type: "text", text: m.content });
  const answered: ToolResultBlock[] = [];
  for (const call of m.toolCalls ?? []) {
    const result = t.results.get(call.id);
    if (!result) {
      t.open.push(call.id);
      continue;
    }
    content.push(toolUseFrom(call));
    answered.push(result);
  }
  if (content.length) t.out.push(withId({ role: "assistant", content }, m.id));
  if (answered.length) t.out.push({ role: "user", content: answered });
}

/**
 * Converts a runner transcript into AG-UI messages (for MESSAGES_SNAPSHOT).
 * @param messages - The transcript.
 * @param newId - Makes ids for messages that have none.
 */
export function toAguiMessages(
  messages: readonly Message[],
  newId: () => string,
  toolMessageIds: ReadonlyMap<string, string> = new Map(),
): AguiMessage[] {
  const out: AguiMessage[] = [];
  for (const m of messages) {
    if (m.role === "assistant") {
      const id = (m.id ??= newId());
      for (const b of m.content) {
        if (b.type === "reasoning" && b.text) {
          const r: AguiMessage = { id: `${id}-reasoning`, role: "reasoning", content: b.text };
          if (b.signature) r.encryptedValue = b.signature;
          out.push(r);
        }
      }
      const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      const calls = m.content.filter((b): b is ToolUseBlock => b.type === "toolUse").map(toolCallFrom);
      const a: AguiMessage = { id, role: "assistant" };
      if (text) a.content = text;
      if (calls.length) a.toolCalls = calls;
      out.push(a);
      continue;
    }
    const results = m.content.filter((b): b is ToolResultBlock => b.type === "toolResult");
    for (const r of results) out.push(toolMessage(r, toolMessageIds.get(r.toolUseId)));
    const rest = m.content.filter((b) => b.type !== "toolResult");
    if (rest.length || !results.length) out.push({ id: (m.id ??= newId()), role: "user", content: userParts(rest) });
  }
  return out;
}

/** The AG-UI tool message for a result: the host's id when it sent the result, else one derived from the call. */
export function toolMessage(r: ToolResultBlock, id = `${r.toolUseId}-result`): AguiMessage {
  const msg: AguiMessage = { id, role: "tool", toolCallId: r.toolUseId, content: toolResultText(r.content) };
  if (r.status === "error") msg.error = toolResultText(r.content);
  return msg;
}

function toolCallFrom(b: ToolUseBlock): ToolCall {
  return {
    id: b.toolUseId,
    type: "function",
    function: { name: b.name, arguments: typeof b.input === "string" ? b.input : JSON.stringify(b.input ?? {}) },
  };
}

function toolUseFrom(call: ToolCall): ToolUseBlock {
  let input: unknown;
  try {
    input = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch {
    input = call.function.arguments;
  }
  return { type: "toolUse", toolUseId: call.id, name: call.function.name, input };
}

function toolResultFrom(m: Extract<AguiMessage, { role: "tool" }>): ToolResultBlock {
  const content: ToolResultContent[] =
    typeof m.content === "string" ? [jsonOrText(m.content)] : (m.content as Part[]).flatMap((p) => partToBlocks(p));
  return { type: "toolResult", toolUseId: m.toolCallId, status: m.error ? "error" : "success", content };
}

function jsonOrText(text: string): ToolResultContent {
  const t = text.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return { type: "json", json: JSON.parse(t) };
    } catch {
      // plain text that happens to start with a bracket
    }
  }
  return { type: "text", text };
}

function userContent(content: string | unknown[]): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return (content as Part[]).flatMap((p) => partToBlocks(p));
}

function partToBlocks(p: Part): (ToolResultContent & ContentBlock)[] {
  if (p.type === "text" && typeof p.text === "string") return [{ type: "text", text: p.text }];
  if ((p.type === "image" || p.type === "document") && p.source && typeof p.source.value === "string") {
    const mimeType = p.source.mimeType ?? (p.type === "image" ? "image/png" : "application/octet-stream");
    const block: ImageBlock | DocumentBlock = { type: p.type, mimeType };
    if (p.source.type === "data") block.data = p.source.value;
    else block.url = p.source.value;
    return [block];
  }
  // Audio, video and unknown parts are not understood by the runner's models; keep a note.
  return [{ type: "text", text: `[${p.type} attachment omitted]` }];
}

function userParts(blocks: ContentBlock[]): string | ContentPart[] {
  if (blocks.every((b) => b.type === "text")) return blocks.map((b) => (b as { text: string }).text).join("");
  return blocks.flatMap((b): ContentPart[] => {
    if (b.type === "text") return [{ type: "text", text: b.text }];
    if (b.type === "image" || b.type === "document") {
      const source =
        b.data !== undefined
          ? { type: "data" as const, value: b.data, mimeType: b.mimeType }
          : { type: "url" as const, value: b.url ?? "", mimeType: b.mimeType };
      return [{ type: b.type, source }];
    }
    return [];
  });
}

function withId(m: Message, id: string | undefined): Message {
  if (id) m.id = id;
  return m;
}

// Two tool-result messages in a row (results of one assistant message split by AG-UI) become one.
function mergeUsers(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const prev = out.at(-1);
    const isResults = m.role === "user" && m.content.every((b) => b.type === "toolResult");
    if (prev && isResults && prev.role === "user" && prev.content.every((b) => b.type === "toolResult")) {
      prev.content.push(...(m.content as ToolResultBlock[]));
    } else out.push(m);
  }
  return out;
}

/**
 * The person's attachments in a run's messages (image/document parts of user messages), as
 * entries for the ReferenceHook's registry. Ids: the part's own id, else `<messageId>:<index>`.
 */
export function collectReferences(input: readonly AguiMessage[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const m of input) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    (m.content as (Part & { id?: string })[]).forEach((p, index) => {
      if ((p.type !== "image" && p.type !== "document") || !p.source || typeof p.source.value !== "string") return;
      const meta = (p.metadata ?? {}) as { name?: unknown };
      const entry: Record<string, unknown> = {
        id: p.id ?? `${m.id}:${index}`,
        name: typeof meta.name === "string" ? meta.name : `${p.type}-${out.length + 1}`,
        mimeType: p.source.mimeType ?? (p.type === "image" ? "image/png" : "application/octet-stream"),
        size: p.source.type === "data" ? Math.floor((p.source.value.length * 3) / 4) : 0,
      };
      if (p.source.type === "data") entry.data = p.source.value;
      else entry.url = p.source.value;
      out.push(entry);
    });
  }
  return out;
}
