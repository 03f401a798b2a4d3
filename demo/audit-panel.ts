/**
 * The audit panel: the conversation's audit trail (every question, answer, grant use and call), a
 * line that says whether the hash chain still holds, and an export as JSON Lines. Self-contained:
 * give it the page's `AuditLog` (e.g. `IndexedDbAuditLog`) and call `refresh()` when a run ends or a
 * CUSTOM `kaboo_audit` event arrives.
 */
import { type AuditEntry, type AuditLog, auditToJsonLines, verifyAuditTrail } from "kaboo-workflows";

function describeEntry(e: AuditEntry, who: (principal: string) => string): string {
  switch (e.kind) {
    case "request":
      return `Asked about ${e.tool}${e.subject ? ` (${e.subject.label})` : ""}${e.required > 1 ? `, ${e.required} approvals needed` : ""}`;
    case "decision":
      return `${e.principal === null ? "Someone" : who(e.principal)}: ${e.decision}${e.scope && e.scope !== "once" ? ` (${e.scope})` : ""}${e.note ? ` — ${e.note}` : ""}`;
    case "grant_use":
      return `${e.tool} ran on a remembered approval`;
    case "execution":
      return e.claim === "claimed"
        ? `${e.tool} ran (${e.status ?? "?"})`
        : e.claim === "done"
          ? `${e.tool}: the recorded result was used, nothing ran again`
          : `${e.tool}: outcome unknown, answered ${e.answer ?? "?"}`;
    case "revocation":
      return `Revoked ${e.grantIds.length} remembered approval(s)`;
    default: {
      const never: never = e;
      return String(never);
    }
  }
}

/**
 * Wires the panel.
 * @param root - The panel element (holds `ol.audit-list`, `.audit-status` and `button.audit-export`).
 * @param audit - The page's audit trail.
 * @param threadId - The conversation shown.
 * @param who - A principal in words (default: as it is).
 * @returns `refresh()`: re-reads and re-checks the trail.
 */
export function setupAuditPanel(
  root: HTMLElement,
  audit: AuditLog,
  threadId: () => string,
  who: (principal: string) => string = (p) => p,
): () => Promise<void> {
  const list = root.querySelector<HTMLOListElement>(".audit-list")!;
  const status = root.querySelector<HTMLElement>(".audit-status")!;
  const exportButton = root.querySelector<HTMLButtonElement>(".audit-export")!;
  let shown: AuditEntry[] = [];
  let drawn = "";

  const refresh = async () => {
    const entries = await audit.entries(threadId());
    // Redrawn only when the trail changed (it is re-read at every run's end and audit event).
    const sig = JSON.stringify([threadId(), entries]);
    if (sig === drawn) return;
    drawn = sig;
    shown = entries;
    list.replaceChildren(
      ...shown.map((e) => {
        const li = document.createElement("li");
        li.dataset["kind"] = e.kind;
        const time = document.createElement("time");
        time.dateTime = new Date(e.at).toISOString();
        time.textContent = new Date(e.at).toLocaleTimeString();
        li.append(time, ` ${describeEntry(e, who)}`);
        return li;
      }),
    );
    const check = await verifyAuditTrail(shown);
    const text =
      shown.length === 0
        ? "Nothing recorded yet in this conversation."
        : check.ok
          ? `${check.count} entries, chain intact`
          : `The trail was changed: entry ${check.index} (${check.problem})`;
    if (status.textContent !== text) status.textContent = text;
    const ok = shown.length === 0 ? undefined : String(check.ok);
    if (status.dataset["ok"] !== ok) {
      if (ok === undefined) delete status.dataset["ok"];
      else status.dataset["ok"] = ok;
    }
    if (exportButton.disabled !== (shown.length === 0)) exportButton.disabled = shown.length === 0;
  };

  exportButton.addEventListener("click", () => {
    const blob = new Blob([auditToJsonLines(shown)], { type: "application/x-ndjson" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `audit-${threadId()}.jsonl`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  });
  return refresh;
}
