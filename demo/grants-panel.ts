/**
 * The grants manager: what the person asked to be remembered, with revoke one / revoke all.
 * It re-reads the store on every change, including changes made in other tabs (the store's
 * BroadcastChannel), so every open tab shows the same list.
 */
import { type Grant, type GrantStore, grantId } from "kaboo-workflows/grants";
import { TOOL_LABELS } from "./bank.js";

function ago(ms: number): string {
  const s = Math.round((Date.now() - ms) / 1000);
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}

/**
 * Wires the panel.
 * @param root - The panel element (holds `ul.grant-list`, `.grant-empty` and `#revoke-all`).
 * @param threadTitle - Names a thread for thread-scoped grants.
 * @param revoked - Called once a revoke here is done and recorded (the audit panel shows it).
 * @returns A function that re-renders (e.g. after switching threads).
 */
export function setupGrantsPanel(
  root: HTMLElement,
  store: GrantStore,
  threadTitle: (threadId: string) => string,
  revoked: () => void = () => {},
): () => Promise<void> {
  const list = root.querySelector<HTMLUListElement>(".grant-list")!;
  const empty = root.querySelector<HTMLElement>(".grant-empty")!;
  const revokeAll = root.querySelector<HTMLButtonElement>("#revoke-all")!;
  const count = document.querySelector<HTMLElement>("#grant-count");

  const render = async () => {
    const grants: Grant[] = (await store.list()).sort((a, b) => b.grantedAt - a.grantedAt);
    list.replaceChildren(
      ...grants.map((g) => {
        const li = document.createElement("li");
        li.className = "grant";
        li.dataset["tool"] = g.tool;
        if (g.subjectKey) li.dataset["subject"] = g.subjectKey;
        const main = document.createElement("div");
        const title = document.createElement("strong");
        title.textContent = g.subjectLabel ?? TOOL_LABELS[g.tool] ?? g.tool;
        const meta = document.createElement("small");
        const where = g.scope === "always" ? "Always" : `This conversation (${threadTitle(g.threadId ?? "")})`;
        meta.textContent = `${g.tool} · ${where} · ${ago(g.grantedAt)}`;
        meta.title = new Date(g.grantedAt).toLocaleString();
        main.append(title, meta);
        const button = document.createElement("button");
        button.type = "button";
        button.className = "ghost small";
        button.textContent = "Revoke";
        button.setAttribute("aria-label", `Revoke ${title.textContent}`);
        button.addEventListener("click", () => void store.revoke(grantId(g)).then(revoked));
        li.append(main, button);
        return li;
      }),
    );
    // Written only when they change (the list is redrawn at the end of every run).
    if (empty.hidden !== grants.length > 0) empty.hidden = grants.length > 0;
    if (revokeAll.disabled !== (grants.length === 0)) revokeAll.disabled = grants.length === 0;
    if (count) {
      if (count.textContent !== String(grants.length)) count.textContent = String(grants.length);
      if (count.hidden !== (grants.length === 0)) count.hidden = grants.length === 0;
    }
  };
  // Two clicks, not a native confirm(): the page stays usable and testable.
  let armed: ReturnType<typeof setTimeout> | undefined;
  const disarm = () => {
    clearTimeout(armed);
    armed = undefined;
    revokeAll.textContent = "Revoke all";
    revokeAll.classList.remove("armed");
  };
  revokeAll.addEventListener("click", () => {
    if (armed === undefined) {
      revokeAll.textContent = "Click again to revoke all";
      revokeAll.classList.add("armed");
      armed = setTimeout(disarm, 4000);
      return;
    }
    disarm();
    void store.revokeAll().then(revoked);
  });
  store.subscribe(() => void render());
  void render();
  return render;
}
