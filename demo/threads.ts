/**
 * The conversation list: every thread the session store holds, newest first, titled by its
 * first message, with a marker on threads that wait for an approval.
 */
import type { SessionStore, ThreadSnapshot } from "kaboo-workflows/agui";

/** One row of the list. */
export interface ThreadInfo {
  id: string;
  title: string;
  savedAt: number;
  pending: boolean;
}

function titleOf(s: ThreadSnapshot | undefined): string {
  const first = s?.messages.find((m) => m.role === "user");
  const text = typeof first?.content === "string" ? first.content : "";
  return text ? (text.length > 40 ? `${text.slice(0, 39)}…` : text) : "New conversation";
}

/** Keeps the list and draws it. */
export class ThreadList {
  readonly #store: SessionStore;
  readonly #list: HTMLUListElement;
  readonly #onOpen: (id: string) => void;
  #infos: ThreadInfo[] = [];

  constructor(store: SessionStore, onOpen: (id: string) => void) {
    this.#store = store;
    this.#list = document.querySelector<HTMLUListElement>("#thread-list")!;
    this.#onOpen = onOpen;
  }

  /** The title of a thread, for grants scoped to it. */
  title(id: string): string {
    return this.#infos.find((t) => t.id === id)?.title ?? "another conversation";
  }

  /** The threads, newest first (after the last {@link refresh}). */
  get threads(): readonly ThreadInfo[] {
    return this.#infos;
  }

  /** Re-reads the store and redraws, marking `current`. */
  async refresh(current: string, locked: boolean): Promise<void> {
    const ids = await this.#store.threads();
    const infos = await Promise.all(
      ids.map(async (id) => {
        const s = await this.#store.load(id);
        return { id, title: titleOf(s), savedAt: s?.savedAt ?? 0, pending: (s?.interrupts.length ?? 0) > 0 };
      }),
    );
    if (!infos.some((t) => t.id === current))
      infos.push({ id: current, title: "New conversation", savedAt: Date.now(), pending: false });
    this.#infos = infos.sort((a, b) => b.savedAt - a.savedAt);
    this.#list.replaceChildren(
      ...this.#infos.map((t) => {
        const li = document.createElement("li");
        const b = document.createElement("button");
        b.type = "button";
        b.className = "thread";
        b.dataset["threadId"] = t.id;
        b.disabled = locked && t.id !== current;
        if (t.id === current) b.setAttribute("aria-current", "true");
        const title = document.createElement("span");
        title.textContent = t.title;
        b.append(title);
        if (t.pending) {
          const dot = document.createElement("span");
          dot.className = "pending-dot";
          dot.title = "Waiting for your approval";
          dot.setAttribute("aria-label", "waiting for approval");
          b.append(dot);
        }
        b.addEventListener("click", () => this.#onOpen(t.id));
        li.append(b);
        return li;
      }),
    );
  }
}
