/**
 * The audit trail over AG-UI: a run's log is watched, and every entry it appends goes to the front
 * end as a CUSTOM `kaboo_audit` event (`value: { entries }`) at the next event of the run, so an
 * audit panel can show the trail live. The resume entries' `metadata` (AG-UI: "a signature proving
 * the human decision was not tampered with") reaches the gate, which records its `signature`.
 *
 * @module
 */
import type { CustomEvent, ResumeEntry } from "@ag-ui/core";
import type { AuditEntry, AuditLog } from "../agent/audit/audit.js";
import type { InvocationState } from "../agent/events.js";
import { runContext } from "../agent/run-context.js";
import { customEvent } from "./run-events.js";

/** Name of the CUSTOM event that carries the audit entries a run appended. */
export const AUDIT_EVENT = "kaboo_audit";

/** A run's audit trail and the entries it appended that the client has not been sent yet. */
export interface WatchedAudit {
  /** The run's entries not sent yet, as one CUSTOM event (none when nothing is pending). */
  drain(): CustomEvent[];
}

/**
 * Puts `audit` into the run's state, watched, and the resume entries' metadata beside it.
 * @param invocationState - The run's state.
 * @param audit - The host's trail (nothing is recorded without one).
 * @param resume - The run's resume entries.
 * @returns The watcher whose `drain` yields the CUSTOM events to send.
 */
export function watchAudit(
  invocationState: InvocationState,
  audit: AuditLog | undefined,
  resume: readonly ResumeEntry[],
): WatchedAudit {
  const metadata: Record<string, unknown> = {};
  for (const entry of resume) if (entry.metadata !== undefined) metadata[entry.interruptId] = entry.metadata;
  if (Object.keys(metadata).length) runContext.resumeMetadata.set(invocationState, metadata);
  const pending: AuditEntry[] = [];
  if (audit) {
    runContext.auditLog.set(invocationState, {
      append: async (threadId, record) => {
        const entry = await audit.append(threadId, record);
        pending.push(entry);
        return entry;
      },
      entries: (threadId) => audit.entries(threadId),
    });
  }
  return {
    drain: () => (pending.length ? [customEvent(AUDIT_EVENT, { entries: pending.splice(0) })] : []),
  };
}
