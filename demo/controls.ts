/**
 * The page's controls: the composer (typing "cancel" while an approval waits declines it), the
 * welcome suggestions, Stop and Esc, the approval banner, "New chat", and the other tabs' news;
 * also the toast and the Copy button of a reply.
 */
import type { Message as AguiMessage, Interrupt as AguiInterrupt } from "@ag-ui/core";
import type { ApprovalDialog, DialogAnswer } from "./approval-dialog.js";
import { contentText } from "./chat-view.js";

const q = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;
const CANCEL = /^\s*(?:cancel|no|deny|don'?t|stop|never\s*mind)\b/i;
const toastTimer = { id: undefined as ReturnType<typeof setTimeout> | undefined };

/** What the controls act on (main.ts's state and actions). */
export interface Controls {
  state: {
    running: boolean;
    threadId: string;
    answers: { interruptId: string }[];
    kaboo: { pendingInterrupts: AguiInterrupt[] };
  };
  dialog: ApprovalDialog;
  prompt: HTMLInputElement;
  tabs: BroadcastChannel;
  send(text: string): void;
  stop(): void;
  askNext(): void;
  answer(i: AguiInterrupt, a: DialogAnswer): void;
  openThread(id: string): Promise<void>;
}

/** Shows a short message for five seconds. */
export function toast(text: string): void {
  const t = q("#toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer.id);
  toastTimer.id = setTimeout(() => (t.hidden = true), 5000);
}

/** Copies the reply a Copy button belongs to (its markdown source). */
export async function copyReply(button: HTMLElement, messages: readonly AguiMessage[]): Promise<void> {
  const id = button.closest<HTMLElement>(".msg")?.dataset["id"];
  const message = messages.find((m) => m.id === id);
  if (!message) return;
  try {
    await navigator.clipboard.writeText(contentText(message));
    button.textContent = "Copied";
  } catch {
    // No clipboard permission (or an insecure page): say so instead of failing silently.
    button.textContent = "Copy failed";
  }
  setTimeout(() => (button.textContent = "Copy"), 1500);
}

/** Wires the controls. */
export function setupControls(app: Controls): void {
  q("#composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = app.prompt.value.trim();
    if (!text || app.state.running) return;
    if (document.body.dataset["status"] === "awaiting-approval") {
      if (!CANCEL.test(text)) return toast("Answer the approval first, or type “cancel” to decline it.");
      app.prompt.value = "";
      app.dialog.close();
      for (const i of app.state.kaboo.pendingInterrupts.filter((p) => !app.state.answers.some((a) => a.interruptId === p.id)))
        app.answer(i, { approved: false, scope: "once" });
      return;
    }
    app.prompt.value = "";
    app.send(text);
  });
  for (const chip of document.querySelectorAll<HTMLButtonElement>("#welcome .chip"))
    chip.addEventListener("click", () => app.send(chip.dataset["prompt"] ?? ""));
  // Stop: the StopGuard refuses further tool calls and the abort cuts the streaming answer; the
  // run then ends as "cancelled" and run() puts the page back to idle with a mark.
  q("#stop").addEventListener("click", app.stop);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && app.state.running && !app.dialog.open) app.stop();
  });
  q("#review").addEventListener("click", () => app.askNext());
  q("#approval").addEventListener("close", () => {
    if (document.body.dataset["status"] !== "awaiting-approval") return;
    q("#pending-banner").hidden = false;
    q("#review").focus();
  });
  q("#new-thread").addEventListener("click", () => void app.openThread(crypto.randomUUID()).then(() => app.prompt.focus()));
  // Another tab ran this conversation (e.g. answered the approval shown here): show what it did.
  app.tabs.addEventListener("message", (e: MessageEvent<{ threadId?: unknown }>) => {
    if (e.data.threadId === app.state.threadId && !app.state.running) void app.openThread(app.state.threadId);
  });
}
