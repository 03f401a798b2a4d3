/**
 * How a person's scope travels through the AI SDK: the `reason` of its tool-approval response (the
 * one field `addToolApprovalResponse` and the response part carry besides `approved`), and where the
 * adapter finds that response in the messages. The one owner of this wire format.
 *
 * @module
 */
import type { ModelMessage } from "ai";
import { APPROVAL_SCOPES, type ApprovalScope } from "../hooks/approval/request.js";

/**
 * Version of the approval reason's form.
 * - 1: `{"kaboo_approval":1,"scope":"once"|"thread"|"always"}`, plus an optional `note` (text) and
 *   optional `editedArgs` (an object: the arguments the call runs with instead of the model's).
 */
export const APPROVAL_REASON_VERSION = 1;

/** What {@link approvalReason} carries. */
export interface ApprovalReasonInput {
  /** How far the approval reaches: this call, this conversation, or from now on. */
  scope: ApprovalScope;
  /** Free text kept beside it (for the person's own record). */
  note?: string | undefined;
  /**
   * The arguments the person edited, replacing the model's whole input (checked against the tool's
   * input schema on the server; an edit that changes what the call is about is denied, to be asked again).
   */
  editedArgs?: Record<string, unknown> | undefined;
}

/**
 * The `reason` to send with an approval (`addToolApprovalResponse({ id, approved: true, reason })`)
 * so that the server remembers it as widely as the person chose. The server clamps the scope to what
 * the rule allows; edited arguments run instead of the model's when they pass the tool's schema.
 * @param input - The scope, an optional note and optional edited arguments.
 * @returns The reason text.
 * @example
 * ```ts
 * addToolApprovalResponse({ id, approved: true, reason: approvalReason({ scope: "thread" }) });
 * ```
 */
export function approvalReason(input: ApprovalReasonInput): string {
  const note = input.note === undefined ? {} : { note: input.note };
  const edits = input.editedArgs === undefined ? {} : { editedArgs: input.editedArgs };
  return JSON.stringify({ kaboo_approval: APPROVAL_REASON_VERSION, scope: input.scope, ...note, ...edits });
}

/**
 * The fields of an approval reason in {@link approvalReason}'s form (or the signed form), or
 * `undefined` when the reason is not one (free text, another version, not JSON).
 * @param reason - The response's reason (untrusted).
 */
export function reasonFields(reason: unknown): Record<string, unknown> | undefined {
  if (typeof reason !== "string" || !reason.startsWith("{")) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(reason);
  } catch {
    return undefined;
  }
  const r = parsed as Record<string, unknown> | null;
  return r?.kaboo_approval === APPROVAL_REASON_VERSION ? r : undefined;
}

/**
 * The edited arguments an approval's reason carries, as sent (untrusted: not yet checked against the
 * tool's schema; any JSON value, an object when well formed).
 * @param reason - The response's reason (untrusted).
 * @returns The edit, or `undefined` when the reason carries none.
 */
export function reasonEdit(reason: unknown): unknown {
  return reasonFields(reason)?.editedArgs;
}

/**
 * The scope an approval's reason asks for. A reason that is not {@link approvalReason}'s (free text,
 * an unknown version or scope) approves this call only.
 * @param reason - The response's reason (untrusted).
 * @returns The scope asked for; `once` when the reason does not say.
 */
export function readApprovalReason(reason: unknown): ApprovalScope {
  const scope = reasonFields(reason)?.scope;
  return APPROVAL_SCOPES.includes(scope as ApprovalScope) ? (scope as ApprovalScope) : "once";
}

/** A person's answer to the approval request of one call, as found in the messages. */
export interface FoundAnswer {
  approvalId: string;
  approved: boolean;
  reason: string | undefined;
}

/**
 * The answer to the approval request of a call, when the messages end with it: the last message is
 * a tool message holding a `tool-approval-response` to a `tool-approval-request` for `toolCallId`.
 * That is where the AI SDK reads the answers it acts on, so an old answer deeper in the history (a
 * later call that reused the id) is never taken for a new one.
 * @param messages - The messages the AI SDK hands to `toolApproval`.
 * @param toolCallId - The call.
 * @returns The answer, or `undefined` when these messages carry none for this call.
 */
export function answerFor(messages: readonly ModelMessage[], toolCallId: string): FoundAnswer | undefined {
  const last = messages.at(-1);
  if (last?.role !== "tool" || typeof last.content === "string") return undefined;
  const asked = new Set<string>();
  for (const m of messages) {
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    for (const part of m.content)
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId) asked.add(part.approvalId);
  }
  for (const part of last.content) {
    if (part.type === "tool-approval-response" && asked.has(part.approvalId))
      return { approvalId: part.approvalId, approved: part.approved, reason: part.reason };
  }
  return undefined;
}
