/**
 * The page's audit trail, loaded lazily: `pageAudit` is the `AuditLog` the agent writes to (an
 * `IndexedDbAuditLog`, shared by the tabs, whose code loads with the first entry or the panel), and
 * the audit panel (./audit-panel.ts) loads after the page has started. The panel is re-read when a
 * CUSTOM `kaboo_audit` event arrives, when a run ends here or in another tab, and when the
 * conversation changes.
 */
import type { AuditLog } from "kaboo-workflows";
import type { KabooAgent } from "kaboo-workflows/agui";
import { grantsAuditThread } from "kaboo-workflows/grants";
import { askedBy } from "./four-eyes.js";
import { persona } from "./persona.js";

type Lazy = typeof import("./audit-lazy.js");
let lazy: Promise<Lazy> | undefined;
const load = (): Promise<Lazy> => {
  lazy ??= import("./audit-lazy.js");
  return lazy;
};

/** The page's audit trail: every tab's questions, answers, grant uses and calls, per conversation. */
export const pageAudit: AuditLog = {
  append: async (threadId, record) => (await load()).auditLog().append(threadId, record),
  entries: async (threadId) => (await load()).auditLog().entries(threadId),
};

let refresh: Promise<() => Promise<void>> | undefined;

/**
 * Shows the open conversation's trail in `#audit` (the panel's code loads on the first call).
 * @param threadId - The conversation shown.
 */
export function showAudit(threadId: () => string): void {
  refresh ??= load().then((m) =>
    m.setupAuditPanel(document.querySelector<HTMLElement>("#audit")!, pageAudit, threadId, askedBy, () =>
      grantsAuditThread(persona()),
    ),
  );
  void refresh.then((r) => r());
}

/**
 * Re-reads the trail when an agent reports new entries or ends a run, and when another tab ends one.
 * @param agent - The open conversation's agent.
 * @param threadId - The conversation shown.
 */
export function watchAudit(agent: KabooAgent, threadId: () => string): void {
  agent.subscribe({
    onCustomEvent: ({ event }) => {
      if (event.name === "kaboo_audit") showAudit(threadId);
    },
    onRunFinalized: () => showAudit(threadId),
  });
}

const tabs = new BroadcastChannel("kaboo-demo:threads");
/** Another tab ended a run: the trail may have grown. */
export function watchOtherTabs(threadId: () => string): void {
  tabs.addEventListener("message", (e: MessageEvent<{ threadId?: string }>) => {
    if (e.data?.threadId === threadId()) showAudit(threadId);
  });
}
