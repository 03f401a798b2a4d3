/**
 * A tool's `{ "kaboo_approval": { … } }` reply: found in its output (structured content, a JSON part,
 * or a text part that is a JSON object) and read, then turned into the {@link ApprovalRequest} the run
 * pauses with (the same one the gate raises, plus the tool's `requestId`).
 *
 * @module
 */
import * as z from "zod/v4/mini";
import type { JsonValue } from "../../agent/messages/messages.js";
import { isObject } from "../../agent/shared/guards.js";
import { looseObject } from "../../agent/shared/lean-schemas.js";
import type { ToolOutput } from "../../agent/tools/tools.js";
import { requestDeadline } from "./decision.js";
import { TOOL_APPROVAL_KEY, type ApprovalRequest, type ApprovalScope } from "./request.js";

const requestSchema = looseObject({
  id: z.optional(z.string()),
  requestId: z.optional(z.string()),
  message: z.optional(z.string()),
  subject: z.optional(z.union([z.string(), z.object({ key: z.string(), label: z.string() })])),
  expiresAt: z.optional(z.string()),
});

/** What a tool's `kaboo_approval` reply may say (every field optional; unknown ones are kept). */
export type ToolApprovalReply = z.infer<typeof requestSchema>;

/**
 * The `kaboo_approval` request in a tool's output.
 * @param output - The tool's output.
 * @returns `undefined` when the output is a plain result, `{ ok: false }` when the request is malformed.
 */
export function approvalRequestIn(
  output: ToolOutput,
): { ok: true; value: ToolApprovalReply } | { ok: false } | undefined {
  const candidates: unknown[] = [output.structuredContent];
  for (const part of output.content) {
    if (part.type === "json") candidates.push(part.json);
    else if (part.type === "text" && part.text.trimStart().startsWith("{")) {
      try {
        candidates.push(JSON.parse(part.text));
      } catch {
        // Not JSON: an ordinary text result.
      }
    }
  }
  for (const c of candidates) {
    if (isObject(c) && Object.hasOwn(c, TOOL_APPROVAL_KEY)) {
      const parsed = requestSchema.safeParse(c[TOOL_APPROVAL_KEY]);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
    }
  }
  return undefined;
}

/** What {@link requestFromReply} needs besides the reply. */
export interface ReplyRequestContext {
  /** The agent's name. */
  agentName: string;
  /** The tool's name. */
  tool: string;
  toolUseId: string;
  /** The call's arguments. */
  input: unknown;
  subject: { key: string; label: string } | null;
  /** The scopes offered to the person. */
  scopes: ApprovalScope[];
  /** The tool's own request id. */
  requestId: string | undefined;
  /** The time, epoch ms (for the request's deadline). */
  now: number;
}

/**
 * The question a tool's reply asks the person.
 * @param r - The reply (`{}` for a malformed one: asked with defaults).
 * @param c - The call it came from.
 * @returns The approval request.
 */
export function requestFromReply(r: ToolApprovalReply, c: ReplyRequestContext): ApprovalRequest {
  const reason: ApprovalRequest = {
    kind: "tool_approval",
    agent: c.agentName,
    tool: c.tool,
    toolUseId: c.toolUseId,
    input: c.input as JsonValue,
    subject: c.subject,
    scopes: c.scopes,
    message: r.message ?? `Allow ${c.subject?.label ?? `the call to "${c.tool}"`}?`,
  };
  const expiresAt = requestDeadline({ given: r.expiresAt, now: c.now });
  if (expiresAt !== undefined) reason.expiresAt = expiresAt;
  if (c.requestId !== undefined) reason.requestId = c.requestId;
  return reason;
}
