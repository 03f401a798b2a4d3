/**
 * The conversation list: every thread the session store holds, newest first, titled by its first
 * message (or the name the person gave it), with a marker on threads that wait for an approval,
 * and rename / delete on each.
 */
import type { SessionStore, ThreadSnapshot } from "kaboo-workflows/agui";

const NAMES_KEY = "kaboo-demo:thread-names";

/** One row of the list. */
export interface ThreadInfo {
  id: string;
  title: string;
  savedAt: number;
  pending: boolean;
}

/** What the list asks the page to do. */
export interface ThreadActions {
  open(id: string): void;
  /** After the thread was removed from the store. */
  deleted(id: string): void;
  /** The titles changed (e.g. for the grants panel). */
  changed(): void;
}

function titleOf(s: ThreadSnapshot | undefined): string {
  const first = s?.messages.find((m) => m.role === "user");
  const text = typeof first?.content === "string" ? first.content : "";
  return text ? (text.length > 40 ? `${text.slice(0, 39)}…` : text) : "New conversation";
}

function names(): Record<string, string> {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(NAMES_KEY) ?? "{}");
    return v && typeof v === "object" ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function iconButton(text: string, label: string, className: string): HTMLButtonElement {
  const b = Object.assign(document.createElement("button"), {
    type: "button",
    className: `icon-button small ${className}`,
    textContent: text,
  });
  b.setAttribute("aria-label", label);
  b.title = label;
  return b;
}

/** Keeps the list and draws it. */
export class ThreadList {
  readonly #store: SessionStore;
  readonly #list: HTMLUListElement;
  readonly #actions: ThreadActions;
  #infos: ThreadInfo[] = [];
  #current = "";
  #locked = false;

  constructor(store: SessionStore, actions: ThreadActions) {
    this.#store = store;
    this.#list = document.querySelector<HTMLUListElement>("#thread-list")!;
    this.#actions = actions;
  }

  /** The title of a thread, for grants scoped to it. */
  title(id: string): string {
    return this.#infos.find((t) => t.id === id)?.title ?? names()[id] ?? "a conversation no longer listed";
  }

  /** The threads, newest first (after the last {@link refresh}). */
  get threads(): readonly ThreadInfo[] {
    return this.#infos;
  }

  /** Re-reads the store and redraws, marking `current`. */
  async refresh(current: string, locked: boolean): Promise<void> {
    this.#current = current;
    this.#locked = locked;
    const given = names();
    const ids = await this.#store.threads();
    const infos = await Promise.all(
      ids.map(async (id) => {
        const s = await this.#store.load(id);
        return {
          id,
          title: given[id] ?? titleOf(s),
          savedAt: s?.savedAt ?? 0,
          pending: (s?.interrupts.length ?? 0) > 0,
        };
      }),
    );
    if (!infos.some((t) => t.id === current))
      infos.push({ id: current, title: given[current] ?? "New conversation", savedAt: Date.now(), pending: false });
    this.#infos = infos.sort((a, b) => b.savedAt - a.savedAt);
    this.#draw();
    this.#actions.changed();
  }

  #draw(): void {
    this.#list.replaceChildren(...this.#infos.map((t) => this.#row(t)));
  }

  #row(t: ThreadInfo): HTMLLIElement {
    const li = document.createElement("li");
    li.className = "thread-row";
    const b = Object.assign(document.createElement("button"), { type: "button", className: "thread" });
    b.dataset["threadId"] = t.id;
    b.disabled = this.#locked && t.id !== this.#current;
    if (t.id === this.#current) b.setAttribute("aria-current", "true");
    b.append(Object.assign(document.createElement("span"), { textContent: t.title }));
    if (t.pending) {
      const dot = Object.assign(document.createElement("span"), {
        className: "pending-dot",
        title: "Waiting for your approval",
      });
      dot.setAttribute("role", "img");
      dot.setAttribute("aria-label", "waiting for approval");
      b.append(dot);
    }
    b.addEventListener("click", () => this.#actions.open(t.id));
    const rename = iconButton("✎", `Rename “${t.title}”`, "rename");
    rename.addEventListener("click", () => this.#rename(li, t));
    const remove = iconButton("✕", `Delete “${t.title}”`, "delete");
    remove.disabled = this.#locked;
    remove.addEventListener("click", () => void this.#delete(remove, t));
    li.append(b, rename, remove);
    return li;
  }

  #rename(li: HTMLLIElement, t: ThreadInfo): void {
    const input = Object.assign(document.createElement("input"), { value: t.title, className: "rename-input" });
    input.setAttribute("aria-label", "Conversation name");
    let done = false;
    const finish = (save: boolean) => {
      if (done) return;
      done = true;
      const name = input.value.trim().slice(0, 60);
      if (save && name) {
        localStorage.setItem(NAMES_KEY, JSON.stringify({ ...names(), [t.id]: name }));
        t.title = name;
      }
      this.#draw();
      this.#actions.changed();
      this.#list.querySelector<HTMLElement>(`[data-thread-id="${CSS.escape(t.id)}"]`)?.focus();
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") finish(true);
      if (e.key === "Escape") {
        e.stopPropagation();
        finish(false);
      }
    });
    input.addEventListener("blur", () => finish(true));
    li.replaceChildren(input);
    input.select();
    input.focus();
  }

  /** Two clicks, not a native confirm(): the page stays usable and testable. */
  async #delete(button: HTMLButtonElement, t: ThreadInfo): Promise<void> {
    if (button.dataset["armed"] !== "true") {
      button.dataset["armed"] = "true";
      button.textContent = "Delete?";
      button.setAttribute("aria-label", `Click again to delete “${t.title}”`);
      setTimeout(() => button.isConnected && this.#draw(), 4000);
      return;
    }
    await this.#store.remove(t.id);
    const { [t.id]: _gone, ...rest } = names();
    localStorage.setItem(NAMES_KEY, JSON.stringify(rest));
    this.#actions.deleted(t.id);
  }
}
