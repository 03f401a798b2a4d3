/**
 * What the approval hooks share: scopes, the request a person sees, the answer
 * they send back, and the notes the model reads when a call does not run.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { formatIssues } from "../../agent/tools/issues.js";
import { looseObject, recordOf } from "../../agent/shared/lean-schemas.js";
import { canonicalJson } from "../../agent/shared/canonical-json.js";
import type { JsonObject, JsonValue } from "../../agent/messages/messages.js";

/** Decision scopes, narrowest first: this call, this conversation, from now on. */
export const APPROVAL_SCOPES = ["once", "thread", "always"] as const;

/** One of {@link APPROVAL_SCOPES}. */
export type ApprovalScope = (typeof APPROVAL_SCOPES)[number];

export { GRANTS_PROP } from "../../agent/run-context.js";

/** Key of the reply a tool sends instead of a result when a call needs approval. */
export const TOOL_APPROVAL_KEY = "kaboo_approval";

/** What a remembered decision covers: a stable key and a label a person can read. */
export interface ApprovalSubject {
  key: string;
  label: string;
}

/**
 * The interrupt `reason` of an approval request (JSON). The AG-UI adapter turns it into an
 * AG-UI `Interrupt { reason: "tool_call", toolCallId, message, expiresAt, metadata }`.
 */
export interface ApprovalRequest {
  kind: "tool_approval";
  agent: string;
  tool: string;
  toolUseId: string;
  input: JsonValue;
  subject: ApprovalSubject | null;
  /** The scopes the person may choose, narrowest first; always starts with `once`. */
  scopes: ApprovalScope[];
  /** ISO 8601; an answer after it does not run the call. */
  expiresAt?: string;
  message: string;
  /** Set when the tool itself asked (ToolApprovalHook): the tool's own request id. */
  requestId?: string;
  /** Under a four-eyes rule: how many must approve, who has so far, and who asked. */
  approvals?: { required: number; approvedBy: { principal: string; at: number }[]; requestedBy: string | null };
}

/** The three outcomes a call can have. */
export type Decision = "approved" | "denied" | "skipped" | "expired";

const scopeSchema = z.literal(APPROVAL_SCOPES);

/**
 * An answer to an approval request. Accepts the AG-UI payload
 * (`{ approved, scope, editedArgs }`, with the resume entry's `status`) and the
 * Python hosts' `tool_input`; a bare boolean means approve/deny once.
 */
export const approvalAnswerSchema = z.union([
  z.pipe(
    z.boolean(),
    z.transform((approved) => ({ approved })),
  ),
  looseObject({
    approved: z.optional(z.boolean()),
    status: z.optional(z.literal(["resolved", "cancelled", "approved", "denied", "skipped"])),
    scope: z.optional(scopeSchema),
    editedArgs: z.optional(recordOf(z.unknown())),
    tool_input: z.optional(recordOf(z.unknown())),
  }),
]);

/** An answer, normalised. */
export interface ApprovalAnswer {
  decision: Exclude<Decision, "expired">;
  scope: ApprovalScope;
  /** A full replacement of the arguments, when the person edited them. */
  editedArgs?: JsonObject;
}

/**
 * Reads an answer; anything unreadable is a denial (never a silent approval).
 * @returns The normalised answer, and `invalid` with the reason when it did not parse.
 */
export function readAnswer(value: unknown): ApprovalAnswer & { invalid?: string } {
  const parsed = approvalAnswerSchema.safeParse(value);
  if (!parsed.success) return { decision: "denied", scope: "once", invalid: formatIssues(parsed.error.issues) };
  const a = parsed.data as {
    approved?: boolean;
    status?: string;
    scope?: ApprovalScope;
    editedArgs?: JsonObject;
    tool_input?: JsonObject;
  };
  const decision =
    a.status === "cancelled" || a.status === "skipped"
      ? "skipped"
      : a.status === "denied"
        ? "denied"
        : a.approved === true || (a.approved === undefined && a.status === "approved")
          ? "approved"
          : "denied";
  const out: ApprovalAnswer = { decision, scope: a.scope ?? "once" };
  const edited = a.editedArgs ?? a.tool_input;
  if (edited !== undefined) out.editedArgs = edited;
  return out;
}

/** The scopes offered for a rule whose widest scope is `widest`, when the host can remember. */
export function scopesUpTo(widest: ApprovalScope, hostRemembers: boolean): ApprovalScope[] {
  return hostRemembers ? APPROVAL_SCOPES.slice(0, APPROVAL_SCOPES.indexOf(widest) + 1) : ["once"];
}

/** Clamps a chosen scope to what was offered ("always" never grants more than was asked). */
export function clampScope(chosen: ApprovalScope, offered: readonly ApprovalScope[]): ApprovalScope {
  if (offered.includes(chosen)) return chosen;
  let widest: ApprovalScope = "once";
  for (const s of offered) if (APPROVAL_SCOPES.indexOf(s) <= APPROVAL_SCOPES.indexOf(chosen)) widest = s;
  return widest;
}

/** The note the model reads when a call does not run. */
export function decisionNote(decision: Decision, tool: string, detail?: string): string {
  const tail = detail ? ` ${detail}` : "";
  switch (decision) {
    case "denied":
      return `The person denied the call to "${tool}"; it did not run. Do not call it again unless they ask.${tail}`;
    case "skipped":
      return `The person skipped the call to "${tool}"; it did not run.${tail}`;
    case "expired":
      return `The approval request for "${tool}" expired before it was answered; the call did not run. Ask the person before trying again.${tail}`;
    case "approved":
      return `The call to "${tool}" was approved.${tail}`;
  }
}

/** A short, stable, non-cryptographic hash of a JSON value (FNV-1a over canonical JSON), for ids and fingerprints. */
export function jsonHash(value: unknown): string {
  const text = canonicalJson(value);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/** Parses an ISO date; `undefined` when absent or unreadable. */
export function parseTime(iso: unknown): number | undefined {
  if (typeof iso !== "string") return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}
