/**
 * The page's controls: the composer (typing "cancel" while an approval waits declines it), the
 * welcome suggestions, Stop and Esc, the approval banner, "New chat", and the other tabs' news;
 * also the toast and the Copy button of a reply.
 */
import type { Message as AguiMessage, Interrupt as AguiInterrupt } from "@ag-ui/core";
import type { DialogAnswer } from "./approval-request.js";
import type { LazyDialog } from "./dialog-loader.js";
import { OUTCOME_UNKNOWN } from "kaboo-workflows";
import { eur, readLedger } from "./bank.js";
import { contentText } from "./chat-view.js";
import { threshold, waitsForOther } from "./four-eyes.js";

const q = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;
const CANCEL = /^\s*(?:cancel|no|nope|deny|decline|don'?t|stop|never\s*mind)\b/i;
const YES = /^\s*(?:yes|yep|yeah|approve|ok(?:ay)?|sure|go ahead|do it|send it)\b/i;
const WENT_THROUGH = /\b(?:went through|it did|it's done|already (?:sent|done|went))\b|^\s*(?:yes|yep|yeah|done)\b/i;
const AGAIN = /\b(?:again|retry|re-?send|run it)\b/i;

/**
 * What a message typed while a question waits answers: the approval ("yes" / "no"), the lost
 * outcome ("it went through" / "run it again" / "cancel"), a look at the balances, or nothing.
 */
function typedAnswer(text: string, unknown: boolean): DialogAnswer | "balance" | undefined {
  if (/\b(?:balances?|how much)\b/i.test(text)) return "balance";
  if (unknown) {
    if (AGAIN.test(text)) return { action: "run_again" };
    if (WENT_THROUGH.test(text)) return { action: "treat_as_done" };
    // A bare "no" to "did it go through?" does not say whether to send it again: ask.
    if (/^\s*(?:no|nope)\b/i.test(text) && !/cancel/i.test(text)) return undefined;
    if (CANCEL.test(text)) return { action: "cancel" };
    return undefined;
  }
  if (CANCEL.test(text)) return { approved: false, scope: "once" };
  if (YES.test(text)) return { approved: true, scope: "once" };
  return undefined;
}

/** The composer while a question waits: answers it in words, or says what it takes. */
function answerTyped(app: Controls, text: string): void {
  const open = app.state.kaboo.pendingInterrupts.filter((p) => !app.state.answers.some((a) => a.interruptId === p.id));
  const first = open[0];
  if (!first) return;
  const unknown = first.reason === OUTCOME_UNKNOWN;
  const answer = typedAnswer(text, unknown);
  if (answer === "balance") {
    const l = readLedger();
    toast(`Checking: ${eur(l.checking)} · Savings: ${eur(l.savings)}. The question above still waits for your answer.`);
    app.prompt.value = "";
    return;
  }
  if (!answer) {
    toast(
      unknown
        ? "Did it go through? Type “it went through”, “run it again” or “cancel” (or ask for your balance)."
        : "Answer the approval first: type “yes” to approve once or “no” to decline.",
    );
    return;
  }
  // The requester's own yes does not count on a four-eyes request: say so, instead of sending a
  // yes the gate would refuse and asking the same question again without a word.
  if ("approved" in answer && answer.approved && waitsForOther(first)) {
    app.prompt.value = "";
    toast(
      `Your yes cannot approve this wire: it is over ${threshold(first)} and you asked for it, so your partner must approve it in their own tab. You can withdraw it (type “no”).`,
    );
    return;
  }
  app.prompt.value = "";
  app.dialog.close();
  // "no" declines every open approval; a yes or an outcome answers the first one only.
  if ("approved" in answer && !answer.approved) for (const i of open) app.answer(i, answer);
  else app.answer(first, answer);
}
const toastTimer = { id: undefined as ReturnType<typeof setTimeout> | undefined };

/** What the controls act on (main.ts's state and actions). */
export interface Controls {
  state: {
    running: boolean;
    threadId: string;
    answers: { interruptId: string }[];
    kaboo: { pendingInterrupts: AguiInterrupt[] };
  };
  dialog: LazyDialog;
  prompt: HTMLInputElement;
  tabs: BroadcastChannel;
  send(text: string): Promise<void>;
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
    if (document.body.dataset["status"] === "awaiting-approval") return answerTyped(app, text);
    app.prompt.value = "";
    void app.send(text);
  });
  for (const chip of document.querySelectorAll<HTMLButtonElement>("#welcome .chip"))
    chip.addEventListener("click", () => void app.send(chip.dataset["prompt"] ?? ""));
  // Stop: the StopGuard refuses further tool calls and the abort cuts the streaming answer; the
  // run then ends as "cancelled" and run() puts the page back to idle with a mark.
  q("#stop").addEventListener("click", app.stop);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && app.state.running && !app.dialog.open) app.stop();
  });
  // Closing the dialog without answering leaves the question on its card, which takes the focus (unless the
  // person already put it elsewhere, such as the composer to type "cancel").
  q("#approval").addEventListener("close", () => {
    const typing = document.activeElement === app.prompt;
    if (document.body.dataset["status"] === "awaiting-approval" && !typing) app.askNext();
  });
  q("#new-thread").addEventListener(
    "click",
    () => void app.openThread(crypto.randomUUID()).then(() => app.prompt.focus()),
  );
  // Another tab ran this conversation (e.g. answered the approval shown here): show what it did.
  app.tabs.addEventListener("message", (e: MessageEvent<{ threadId?: unknown }>) => {
    if (e.data.threadId === app.state.threadId && !app.state.running) void app.openThread(app.state.threadId);
  });
}
