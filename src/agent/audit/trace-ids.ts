/**
 * The form of the trace ids a call's audit entry may carry (W3C hex, lowercase): one definition for
 * the entry's schema (`audit.ts`) and the run's trail that stamps them (`audit-record.ts`), in a
 * module of its own so that the trail, which loads with the page, does not import the entry's format.
 *
 * @module
 */
import type { AuditTraceIds } from "./audit.js";

/** A trace id: 32 lowercase hex digits. */
export const TRACE_ID = /^[0-9a-f]{32}$/;
/** A span id: 16 lowercase hex digits. */
export const SPAN_ID = /^[0-9a-f]{16}$/;

/**
 * @internal Whether `ids` have the form an entry's `traceId` and `spanId` must have (lowercase hex, 32 and 16
 * digits): an entry with any other would not parse, and its whole trail would fail verification.
 */
export function isAuditTraceIds(ids: AuditTraceIds): boolean {
  return TRACE_ID.test(ids.traceId) && SPAN_ID.test(ids.spanId);
}
