/**
 * Approvals and ledger answers on a call's `execute_tool` span: each audit record the run's gates and
 * ledger make (read through `watchRunAudit`, with or without an audit log) becomes attributes of the span
 * (its latest state) and an event (when it happened).
 *
 * @module
 */
import type { Attributes, Span } from "@opentelemetry/api";
import type { AuditEntry, AuditRecord } from "../agent/audit/audit.js";
import type { JsonValue } from "../agent/messages/messages.js";
import { sha256Hex } from "../agent/shared/sha256.js";
import { KABOO, KABOO_EVENTS } from "./attributes.js";

/** How a person appears on a span: as the host names them, as a SHA-256 of that name, or not at all. */
export type PrincipalMode = "plain" | "sha256" | "omit";

const LEDGER_ANSWERS = { claimed: "ran", done: "replayed", unknown: "outcome_unknown" } as const;

/** The principal as `mode` shows it; `undefined` when it is not shown. */
function shown(principal: string | null, mode: PrincipalMode): string | undefined {
  if (principal === null || mode === "omit") return undefined;
  return mode === "sha256" ? sha256Hex(principal) : principal;
}

/** The entry's sequence number as an attribute, for the gates' records (the ledger's, one per call, makes no object for it). */
function seqOf(entry: AuditEntry | undefined): Attributes {
  return entry === undefined ? {} : { [KABOO.auditSeq]: entry.seq };
}

/** Sets every defined attribute of `attrs`. */
function setDefined(span: Span, attrs: Record<string, string | number | boolean | undefined>): Attributes {
  const out: Attributes = {};
  for (const k in attrs) {
    const v = attrs[k];
    if (v !== undefined) out[k] = v;
  }
  span.setAttributes(out);
  return out;
}

/**
 * Puts one audit record of a call on its span.
 * @param span - The call's `execute_tool` span.
 * @param record - What the gate or the ledger recorded.
 * @param entry - The entry as stored, when the run has an audit log (its sequence number is the entry's id).
 * @param mode - How principals appear.
 */
export function recordOnSpan(
  span: Span,
  record: AuditRecord,
  entry: AuditEntry | undefined,
  mode: PrincipalMode,
): void {
  const at = entry?.at;
  switch (record.kind) {
    case "request": {
      const attrs = setDefined(span, {
        [KABOO.decision]: "asked",
        [KABOO.interruptId]: record.interruptId,
        [KABOO.rule]: record.rule,
        [KABOO.subject]: record.subject?.key,
        [KABOO.required]: record.required,
        [KABOO.expiresAt]: record.expiresAt ?? undefined,
        ...seqOf(entry),
      });
      span.addEvent(KABOO_EVENTS.asked, attrs, at);
      return;
    }
    case "decision": {
      const attrs = setDefined(span, {
        [KABOO.decision]: record.decision,
        [KABOO.interruptId]: record.interruptId,
        [KABOO.scope]: record.scope ?? undefined,
        [KABOO.principal]: shown(record.principal, mode),
        [KABOO.note]: record.note ?? undefined,
        ...seqOf(entry),
      });
      span.addEvent(KABOO_EVENTS.decided, attrs, at);
      return;
    }
    case "grant_use": {
      const attrs = setDefined(span, {
        [KABOO.decision]: "granted",
        [KABOO.grantId]: record.grantId,
        [KABOO.principal]: shown(record.principal, mode),
        ...seqOf(entry),
      });
      span.addEvent(KABOO_EVENTS.granted, attrs, at);
      return;
    }
    case "execution": {
      // Once per call the ledger claims, traced or gated or not: kept to one attribute and one event.
      const attrs: Attributes = { [KABOO.ledger]: LEDGER_ANSWERS[record.claim] };
      if (record.answer !== null) attrs[KABOO.ledgerAnswer] = record.answer;
      span.setAttributes(attrs);
      if (entry !== undefined) attrs[KABOO.auditSeq] = entry.seq;
      span.addEvent(KABOO_EVENTS.ledger, attrs, at);
      return;
    }
    case "revocation":
      return;
    default: {
      const never: never = record;
      void never;
    }
  }
}

/**
 * Puts a question still open at the end of the run on its call's span: asked, and under four eyes how many
 * approvals it has so far (from the request the person is shown).
 * @param span - The call's span.
 * @param interruptId - The open question.
 * @param reason - The question's request: an `ApprovalRequest` of the approval gates; any other question is
 *   named in `kaboo.tool.question` (the ledger's outcome-unknown one also sets `kaboo.ledger.answer`).
 */
export function openQuestionOnSpan(span: Span, interruptId: string, reason: JsonValue | undefined): void {
  const request = reason && typeof reason === "object" && !Array.isArray(reason) ? reason : {};
  // Another question about the call (the ledger's "did it run?", a tool's own): not an approval.
  if (request.kind !== "tool_approval") {
    span.setAttribute(KABOO.question, interruptId);
    if (request.kind === "outcome_unknown") span.setAttribute(KABOO.ledger, "outcome_unknown");
    return;
  }
  const approvals = request.approvals;
  const progress =
    approvals && typeof approvals === "object" && !Array.isArray(approvals) && Array.isArray(approvals.approvedBy)
      ? { given: approvals.approvedBy.length, required: approvals.required }
      : undefined;
  setDefined(span, {
    [KABOO.decision]: "asked",
    [KABOO.interruptId]: interruptId,
    [KABOO.subject]: subjectKey(request.subject),
    [KABOO.expiresAt]: typeof request.expiresAt === "string" ? request.expiresAt : undefined,
    [KABOO.approvals]: progress?.given,
    [KABOO.required]: typeof progress?.required === "number" ? progress.required : undefined,
  });
}

function subjectKey(subject: JsonValue | undefined): string | undefined {
  if (!subject || typeof subject !== "object" || Array.isArray(subject)) return undefined;
  return typeof subject.key === "string" ? subject.key : undefined;
}
