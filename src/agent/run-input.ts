/**
 * What a run starts from: its input, checked (a resume's answers against the paused run's questions).
 * Part of the runner's chunk: it loads with the agent's first run.
 *
 * @module
 */
import { formatIssues } from "./tools/issues.js";
import {
  InvalidInterruptResponseError,
  PendingInterruptsError,
  UnknownInterruptIdError,
  UserError,
} from "../errors.js";
import type { Agent, AgentInput } from "./agent.js";
import { interruptResponsesSchema, type InterruptResponse } from "./interrupts/interrupt.js";
import type { LoopInput } from "./loop.js";
import type { ContentBlock, Message } from "./messages/messages.js";

/**
 * The loop's input for `input`.
 * @throws PendingInterruptsError, UnknownInterruptIdError, PartialResumeError, InvalidInterruptResponseError
 *   for resume mistakes; UserError for input of no known shape.
 */
export function runInput(agent: Agent, input: AgentInput): LoopInput {
  const state = agent.interruptState;
  if (isResume(input)) {
    const parsed = interruptResponsesSchema.safeParse(input);
    // Resume payloads come from clients: a bad one is a typed error naming the interrupt, never a ZodError.
    if (!parsed.success) throw invalidResponses(input, formatIssues(parsed.error.issues));
    const responses = parsed.data;
    if (!state.activated) throw new UnknownInterruptIdError(responses[0]?.interruptResponse.interruptId ?? "", []);
    state.resume(responses);
    return { kind: "resume", responses };
  }
  if (state.activated && input === undefined && state.pendingIds().length === 0) {
    // A paused batch with every question answered (a checkpoint of a run cut mid-batch): go on
    // with it. Its finished calls keep their results; the others run (through the ledger) now.
    return { kind: "resume", responses: [] };
  }
  if (state.activated) throw new PendingInterruptsError(state.pendingIds());
  if (input === undefined) return { kind: "messages", messages: [] };
  if (typeof input === "string")
    return { kind: "messages", messages: [{ role: "user", content: [{ type: "text", text: input }] }] };
  if (!Array.isArray(input))
    throw new UserError("invoke() takes a string, content blocks, messages or interrupt answers.");
  if (input.every(isMessage)) return { kind: "messages", messages: structuredClone(input as Message[]) };
  if (input.every(isBlock))
    return { kind: "messages", messages: [{ role: "user", content: structuredClone(input as ContentBlock[]) }] };
  throw new UserError(
    "invoke() got an array that is neither all messages ({ role, content[] }) nor all content blocks ({ type }).",
  );
}

const BLOCK_TYPES = new Set(["text", "image", "document", "toolUse", "toolResult", "reasoning"]);

function isMessage(x: unknown): boolean {
  const m = x as Partial<Message> | null;
  return (
    typeof m === "object" &&
    m !== null &&
    (m.role === "user" || m.role === "assistant") &&
    Array.isArray(m.content) &&
    m.content.every(isBlock)
  );
}

function isBlock(x: unknown): boolean {
  const b = x as { type?: unknown } | null;
  return typeof b === "object" && b !== null && typeof b.type === "string" && BLOCK_TYPES.has(b.type);
}

function invalidResponses(input: readonly unknown[], detail: string): InvalidInterruptResponseError {
  for (const item of input) {
    const r = (item as { interruptResponse?: { interruptId?: unknown; response?: unknown } }).interruptResponse;
    const id = typeof r?.interruptId === "string" ? r.interruptId : undefined;
    if (id !== undefined && (r?.response === undefined || r.response === null)) {
      return new InvalidInterruptResponseError(id, "the answer is null or undefined");
    }
  }
  const first = (input[0] as { interruptResponse?: { interruptId?: unknown } }).interruptResponse?.interruptId;
  return new InvalidInterruptResponseError(
    typeof first === "string" ? first : "(none)",
    `malformed resume payload: ${detail}`,
  );
}

function isResume(input: AgentInput): input is InterruptResponse[] {
  return (
    Array.isArray(input) &&
    input.length > 0 &&
    input.every((x) => typeof x === "object" && x !== null && "interruptResponse" in x)
  );
}
