/**
 * The transcript's DOM, kept incrementally: each block (a message, a tool call, a mark) has a key
 * and a signature, and only blocks whose signature changed are touched. The streaming reply is
 * patched in place, so a streamed frame changes that one message and nothing else.
 *
 * Also here: which `<details>` the person opened (kept across re-renders and reloads), the
 * "scroll to the latest" button, and the buttons inside messages (one delegated listener).
 */

/** One piece of the transcript. */
export interface Block {
  key: string;
  /** Changes whenever what the block shows changes. */
  sig: string;
  build(): HTMLElement;
  /** Updates `el` in place instead of rebuilding it; returns false when it cannot. */
  patch?(el: HTMLElement): boolean;
}

/** What the buttons inside the transcript do (`data-action` / `data-prompt`). */
export type TranscriptAction = (action: string, target: HTMLElement) => void;

const OPEN_KEY = "kaboo-demo:open-details";
const PINNED_PX = 80;

/** The transcript element and its blocks. */
export class Transcript {
  readonly #root: HTMLElement;
  readonly #toBottom: HTMLButtonElement;
  readonly #nodes = new Map<string, { sig: string; el: HTMLElement }>();
  readonly #open: Set<string>;

  constructor(root: HTMLElement, toBottom: HTMLButtonElement, onAction: TranscriptAction) {
    this.#root = root;
    this.#toBottom = toBottom;
    this.#open = new Set(readOpen());
    root.addEventListener("click", (e) => {
      const target = (e.target as HTMLElement).closest<HTMLElement>("[data-action], [data-prompt]");
      if (target && root.contains(target)) onAction(target.dataset["action"] ?? "prompt", target);
    });
    // `toggle` does not bubble: listen while it goes down.
    root.addEventListener(
      "toggle",
      (e) => {
        const d = e.target as HTMLDetailsElement;
        const key = d.dataset["key"];
        if (!key) return;
        if (d.open) this.#open.add(key);
        else this.#open.delete(key);
        sessionStorage.setItem(OPEN_KEY, JSON.stringify([...this.#open].slice(-200)));
      },
      true,
    );
    root.addEventListener("scroll", () => this.#showToBottom(), { passive: true });
    toBottom.addEventListener("click", () => {
      root.scrollTo({ top: root.scrollHeight, behavior: "smooth" });
      toBottom.hidden = true;
    });
  }

  /** Whether a `<details>` with this key was left open. */
  isOpen(key: string): boolean {
    return this.#open.has(key);
  }

  /** Forgets every block (another conversation is shown). */
  clear(): void {
    this.#nodes.clear();
    this.#root.replaceChildren();
    this.#toBottom.hidden = true;
  }

  /** Brings the DOM in line with `blocks`, touching only what changed. */
  update(blocks: readonly Block[]): void {
    const pinned = this.#pinned();
    const keep = new Set<string>();
    let prev: HTMLElement | null = null;
    for (const b of blocks) {
      keep.add(b.key);
      let entry = this.#nodes.get(b.key);
      if (!entry) {
        entry = { sig: b.sig, el: b.build() };
        this.#nodes.set(b.key, entry);
      } else if (entry.sig !== b.sig) {
        if (!b.patch?.(entry.el)) {
          const el = b.build();
          entry.el.replaceWith(el);
          entry.el = el;
        }
        entry.sig = b.sig;
      }
      const expected: Element | null = prev ? prev.nextElementSibling : this.#root.firstElementChild;
      if (expected !== entry.el) {
        if (prev) prev.after(entry.el);
        else this.#root.prepend(entry.el);
      }
      prev = entry.el;
    }
    for (const [key, entry] of this.#nodes) {
      if (keep.has(key)) continue;
      entry.el.remove();
      this.#nodes.delete(key);
    }
    if (pinned) this.#root.scrollTop = this.#root.scrollHeight;
    this.#showToBottom();
  }

  #pinned(): boolean {
    const r = this.#root;
    return r.scrollHeight - r.scrollTop - r.clientHeight < PINNED_PX;
  }

  #showToBottom(): void {
    const pinned = this.#pinned();
    if (this.#toBottom.hidden !== pinned) this.#toBottom.hidden = pinned;
  }
}

function readOpen(): string[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(OPEN_KEY) ?? "[]");
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}
