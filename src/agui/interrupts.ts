/**
 * Runner interrupts ↔ AG-UI interrupts and resume entries.
 *
 * @module
 */
import type { Interrupt as AguiInterrupt, ResumeEntry } from "@ag-ui/core";
import type { Agent } from "../agent/agent.js";
import type { Interrupt, InterruptResponse } from "../agent/interrupts/interrupt.js";
import { OUTCOME_UNKNOWN, type OutcomeUnknownRequest } from "../agent/ledger/outcome-answer.js";
import { interruptCallId } from "../agent/interrupts/interrupt-id.js";
import type { JsonValue } from "../agent/messages/messages.js";
import type { ApprovalRequest } from "../hooks/approval/request.js";

/** Interrupt name a browser tool raises when the page has no handler for it. */
export const CLIENT_TOOL_INTERRUPT = "client_tool";

/**
 * What an `outcome_unknown` question accepts: `{ action: "run_again" | "treat_as_done" | "cancel" }`
 * (the approval dialog's `{ approved }` is read too: true runs it again, false cancels).
 */
const OUTCOME_RESPONSE_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: { action: { type: "string", enum: ["run_again", "treat_as_done", "cancel"] } },
  required: ["action"],
  additionalProperties: true,
};

/**
 * The AG-UI form of a runner interrupt. Approval requests become
 * `{ reason: "tool_call", toolCallId, message, responseSchema, expiresAt, metadata }`;
 * `responseSchema` advertises exactly the payload the gate reads.
 *
 * A call whose outcome the execution ledger does not know (its page or server died mid-call)
 * becomes `{ reason: "outcome_unknown", toolCallId, message, responseSchema, metadata: { kaboo:
 * { kind: "outcome_unknown", tool, toolUseId, input, claimedAt, message, actions } } }`; answer it
 * with `resume: [{ interruptId, status: "resolved", payload: { action: "run_again" | "treat_as_done"
 * | "cancel" } }]` (or `status: "cancelled"`). An unreadable answer cancels: it never re-runs a call.
 */
export function toAguiInterrupt(i: Interrupt, agent: Agent): AguiInterrupt {
  const reason = i.reason as Partial<ApprovalRequest> | undefined;
  // The call the front end knows is the one in the interrupt's id: for a delegate's approval the
  // request names the delegate's inner call, which the front end never saw.
  const ownCall = interruptCallId(i.id);
  if (reason && typeof reason === "object" && reason.kind === "tool_approval" && typeof reason.toolUseId === "string") {
    const out: AguiInterrupt = {
      id: i.id,
      reason: "tool_call",
      toolCallId: ownCall ?? reason.toolUseId,
      message: reason.message ?? `Approve the call to ${reason.tool}?`,
      responseSchema: approvalResponseSchema(reason, agent),
      metadata: { kaboo: reason as unknown as JsonValue },
    };
    if (reason.expiresAt) out.expiresAt = reason.expiresAt;
    return out;
  }
  const out: AguiInterrupt = { id: i.id, reason: i.name };
  if (i.reason !== undefined) out.metadata = { kaboo: i.reason };
  const unknown = i.reason as Partial<OutcomeUnknownRequest> | undefined;
  if (i.name === OUTCOME_UNKNOWN && typeof unknown?.message === "string") {
    out.message = unknown.message;
    out.responseSchema = OUTCOME_RESPONSE_SCHEMA;
  }
  if (ownCall) out.toolCallId = ownCall;
  return out;
}

function approvalResponseSchema(reason: Partial<ApprovalRequest>, agent: Agent): Record<string, unknown> {
  const scopes = Array.isArray(reason.scopes) && reason.scopes.length ? reason.scopes : ["once"];
  const tool = typeof reason.tool === "string" ? agent.tool(reason.tool) : undefined;
  return {
    type: "object",
    properties: {
      approved: { type: "boolean" },
      scope: { type: "string", enum: scopes, default: "once" },
      editedArgs: tool?.spec.inputSchema ?? { type: "object" },
    },
    required: ["approved"],
    additionalProperties: false,
  };
}

/**
 * Resume entries → the runner's interrupt responses. A `cancelled` entry answers
 * with `{ status: "cancelled" }` (the gate reads it as skipped); a resolved entry's
 * object payload gets its `status`; other payloads pass through (a missing one is
 * `null`, which the runner refuses as INVALID_PAYLOAD).
 */
export function toInterruptResponses(entries: readonly ResumeEntry[]): InterruptResponse[] {
  return entries.map((e) => {
    let response: JsonValue;
    if (e.status === "cancelled") response = { status: "cancelled" };
    else if (e.payload !== null && typeof e.payload === "object" && !Array.isArray(e.payload))
      response = { ...(e.payload as Record<string, JsonValue>), status: "resolved" };
    else response = (e.payload ?? null) as JsonValue;
    return { interruptResponse: { interruptId: e.interruptId, response } };
  });
}
