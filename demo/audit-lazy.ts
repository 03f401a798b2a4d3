/**
 * What the audit trail needs beyond the page's start: the IndexedDB log and the panel. Loaded by
 * ./audit-view.ts, never at start-up.
 */
import { IndexedDbAuditLog } from "kaboo-workflows/grants";

export { setupAuditPanel } from "./audit-panel.js";

let log: IndexedDbAuditLog | undefined;
/** The page's audit log (one per page; the database is shared by the tabs). */
export function auditLog(): IndexedDbAuditLog {
  log ??= new IndexedDbAuditLog();
  return log;
}
