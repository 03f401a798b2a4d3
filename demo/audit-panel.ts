/**
 * The audit panel: the conversation's audit trail (every question, answer, grant use and call), a
 * line that says whether the hash chain still holds, and an export as JSON Lines. Self-contained:
 * give it the page's `AuditLog` (e.g. `IndexedDbAuditLog`) and call `refresh()` when a run ends or a
 * CUSTOM `kaboo_audit` event arrives.
 */
import { type AuditEntry, type AuditLog, auditToJsonLines, verifyAuditTrail } from "kaboo-workflows";
import { actionNoun } from "./actions.js";

const SCOPES: Record<string, string> = { thread: " for this conversation", always: " from now on" };
const DECIDED: Record<string, string> = {
  approved: "approved",
  denied: "declined",
  skipped: "dismissed",
  expired: "did not answer in time",
  refused: "tried to approve (not counted)",
};
const LOST: Record<string, string> = {
  run_again: "you had it run again",
  treat_as_done: "you said it went through",
  cancel: "you cancelled it",
};
const PROBLEMS: Record<string, string> = {
  malformed: "it is not a record this page wrote",
  edited: "it was edited",
  dropped: "an entry before it was deleted",
  reordered: "entries were put out of order",
  other_thread: "it belongs to another conversation",
  truncated: "later entries were cut off",
};
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const times = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** An entry in words a customer reads: what happened, to what, and who did it. */
export function describeEntry(e: AuditEntry, who: (principal: string) => string): string {
  const person = (p: string | null) => (p === null ? "Someone" : who(p));
  switch (e.kind) {
    case "request": {
      const subject = e.subject ? ` (${e.subject.label})` : "";
      const people = e.required > 1 ? `, from ${e.required} people` : "";
      return `Approval asked for ${actionNoun(e.tool)}${subject}${people}`;
    }
    case "decision": {
      const decided = DECIDED[e.decision] ?? e.decision;
      const scope = e.decision === "approved" ? (SCOPES[e.scope ?? ""] ?? "") : "";
      const note = e.note ? ` — ${e.note}` : "";
      return `${person(e.principal)} ${decided} ${actionNoun(e.tool)}${scope}${note}`;
    }
    case "grant_use":
      return `${capital(actionNoun(e.tool))} went ahead on an approval you gave earlier`;
    case "execution": {
      const noun = capital(actionNoun(e.tool));
      if (e.claim === "claimed") return e.status === "error" ? `${noun} failed` : `${noun} was carried out`;
      if (e.claim === "done") return `${noun} had already been carried out; nothing ran twice`;
      return `${noun}: the page closed before its outcome was known, and ${LOST[e.answer ?? ""] ?? "it was not answered"}`;
    }
    case "revocation":
      return `${person(e.by ?? e.principal)} revoked ${times(e.grantIds.length, "remembered approval")}`;
    default: {
      const never: never = e;
      return String(never);
    }
  }
}

/**
 * What an entry records, without its place in the chain or in a trace: two entries alike are one event recorded
 * twice (a run continued after a reload records its answer again, under a span of its own).
 */
function sameEvent(e: AuditEntry): string {
  const { v: _v, seq: _seq, at: _at, prev: _prev, threadId: _thread, ...record } = e;
  const { traceId: _trace, spanId: _span, ...event } = record as typeof record & { traceId?: string; spanId?: string };
  return JSON.stringify(event);
}

/** The entries to list: an event recorded again (a reload mid-call replays it) is listed once, with its count. */
export function listed(entries: readonly AuditEntry[]): { entry: AuditEntry; count: number }[] {
  const seen = new Map<string, { entry: AuditEntry; count: number }>();
  for (const entry of entries) {
    const key = sameEvent(entry);
    const row = seen.get(key);
    if (row) row.count++;
    else seen.set(key, { entry, count: 1 });
  }
  return [...seen.values()];
}

/**
 * Wires the panel.
 * @param root - The panel element (holds `ol.audit-list`, `.audit-status` and `button.audit-export`).
 * @param audit - The page's audit trail.
 * @param threadId - The conversation shown.
 * @param who - A principal in words (default: as it is).
 * @param grantsTrail - The trail this person's revocations go to (`grantsAuditThread(principal)`): listed
 *   with the conversation's entries, and checked too.
 * @returns `refresh()`: re-reads and re-checks the trail.
 */
export function setupAuditPanel(
  root: HTMLElement,
  audit: AuditLog,
  threadId: () => string,
  who: (principal: string) => string = (p) => p,
  grantsTrail?: () => string,
): () => Promise<void> {
  const list = root.querySelector<HTMLOListElement>(".audit-list")!;
  const status = root.querySelector<HTMLElement>(".audit-status")!;
  const exportButton = root.querySelector<HTMLButtonElement>(".audit-export")!;
  let shown: AuditEntry[] = [];
  let drawn = "";

  const refresh = async () => {
    const entries = await audit.entries(threadId());
    const revocations = grantsTrail ? await audit.entries(grantsTrail()) : [];
    // Redrawn only when the trail changed (it is re-read at every run's end and audit event).
    const sig = JSON.stringify([threadId(), entries, revocations]);
    if (sig === drawn) return;
    drawn = sig;
    shown = entries;
    const rows = [...listed(entries), ...listed(revocations)].sort((a, b) => a.entry.at - b.entry.at);
    list.replaceChildren(
      ...rows.map(({ entry: e, count }) => {
        const li = document.createElement("li");
        li.dataset["kind"] = e.kind;
        if (count > 1) {
          li.dataset["times"] = String(count);
          li.title = `Recorded ${count} times: the page reloaded while this went on. It happened once.`;
        }
        const time = document.createElement("time");
        time.dateTime = new Date(e.at).toISOString();
        time.textContent = new Date(e.at).toLocaleTimeString();
        li.append(time, ` ${describeEntry(e, who)}`);
        return li;
      }),
    );
    const check = await verifyAuditTrail(shown);
    const grants = await verifyAuditTrail(revocations);
    const total = shown.length + revocations.length;
    const text =
      total === 0
        ? "Nothing recorded yet in this conversation."
        : !check.ok
          ? `The record was changed after it was written: entry ${check.index + 1} of this conversation: ${PROBLEMS[check.problem] ?? check.problem}.`
          : !grants.ok
            ? `The record was changed after it was written: entry ${grants.index + 1} of your remembered approvals: ${PROBLEMS[grants.problem] ?? grants.problem}.`
            : `${times(total, "entry", "entries")}, none changed since written`;
    if (status.textContent !== text) status.textContent = text;
    const ok = total === 0 ? undefined : String(check.ok && grants.ok);
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
