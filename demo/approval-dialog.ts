/**
 * The approval dialog: a modal `<dialog>` showing what the agent wants to do, the scopes the
 * request offers, a form to edit the details (./edit-form.ts), and a countdown when
 * the request has a deadline. It also asks about a call whose outcome was lost (the page stopped
 * while it ran): run it again, treat it as done, or cancel.
 *
 * Keyboard: Tab moves between the controls (the page behind is inert); Esc closes the dialog
 * *without answering* — the run stays paused and the card keeps the question. Focus starts on
 * "Deny" (the choice that cannot move money) and returns where it was when the dialog closes.
 */
import type { Interrupt as AguiInterrupt } from "@ag-ui/core";
import type { OutcomeAction } from "kaboo-workflows";
import { actionWords, outcomeQuestion } from "./actions.js";
import { approvalRequest, type DialogAnswer, type Request, type Scope } from "./approval-request.js";
import { eur, readLedger } from "./bank.js";
import { EditForm } from "./edit-form.js";
import { fourEyesNote, quorumOf, waitsForOther } from "./four-eyes.js";

/** The dialog, bound to the markup in index.html. */
export class ApprovalDialog {
  readonly #dialog: HTMLDialogElement;
  readonly #q = <T extends HTMLElement>(sel: string) => this.#dialog.querySelector<T>(sel)!;
  #timer: ReturnType<typeof setInterval> | undefined;
  #returnFocus: HTMLElement | null = null;
  #onAnswer: ((a: DialogAnswer) => void) | undefined;
  #request: Request | undefined;
  readonly #form: EditForm;
  /** The interrupt shown, if any. */
  current: AguiInterrupt | undefined;

  constructor(dialog: HTMLDialogElement) {
    this.#dialog = dialog;
    this.#form = new EditForm(this.#q("#approval-edit-form"), () => this.#validate());
    // Esc closes natively; either way focus goes back where it was, unless the person is typing elsewhere by
    // then (the close event comes a task later: "cancel" typed in the composer at once).
    dialog.addEventListener("close", () => {
      this.#stopTimer();
      const back = this.#returnFocus;
      if (back?.isConnected && !back.matches(":disabled") && !typingElsewhere(dialog)) back.focus();
    });
    this.#q<HTMLButtonElement>("#deny").addEventListener("click", () =>
      this.#answer({ approved: false, scope: "once" }),
    );
    this.#q<HTMLButtonElement>("#approval-dismiss").addEventListener("click", () =>
      this.#answer({ approved: false, scope: "once" }),
    );
    this.#q<HTMLButtonElement>("#approval-later").addEventListener("click", () => this.close());
    for (const b of dialog.querySelectorAll<HTMLButtonElement>("button[data-outcome]"))
      b.addEventListener("click", () => this.#answer({ action: b.dataset["outcome"] as OutcomeAction }));
    this.#q<HTMLButtonElement>("#edit-toggle").addEventListener("click", () => this.#toggleEdit());
    for (const b of dialog.querySelectorAll<HTMLButtonElement>("button[data-scope]")) {
      b.addEventListener("click", () => this.#approve(b.dataset["scope"] as Scope));
    }
  }

  /** Whether the dialog is showing. */
  get open(): boolean {
    return this.#dialog.open;
  }

  /**
   * Shows an approval request.
   * @param onAnswer - Called once with the person's answer (the dialog closes first).
   */
  show(interrupt: AguiInterrupt, onAnswer: (a: DialogAnswer) => void): void {
    const request = approvalRequest(interrupt);
    if (!request) return;
    this.current = interrupt;
    this.#request = request;
    this.#onAnswer = onAnswer;
    this.#describe(request.input);
    this.#q("#approval-message").textContent =
      request.kind === "unknown"
        ? `The page closed while the bank was booking it, so it may or may not have gone through. Checking has ${eur(readLedger().checking)} now; type “balance” below to see both accounts.`
        : (fourEyesNote(interrupt) ?? request.message);
    // "Covers" belongs to the choices that remember a yes: shown only when they are offered.
    this.#q("#approval-subject").textContent = request.subject?.label ?? request.tool;
    this.#q("#approval-remember").hidden = !request.scopes.some((s) => s !== "once");
    for (const b of this.#dialog.querySelectorAll<HTMLButtonElement>("button[data-scope]")) {
      b.hidden = !request.scopes.includes(b.dataset["scope"] as Scope);
    }
    // Four eyes: the requester only waits (or withdraws); no one edits a call that needs two people.
    if (waitsForOther(interrupt)) this.#q("#approve-once").hidden = true;
    if (request.kind === "unknown") {
      this.#q("#approval-title").textContent = outcomeQuestion(request.tool, request.input);
      this.#q("#approval-remember").hidden = true;
    }
    this.#form.show(request.tool, request.input);
    this.#q("#approval-edit-box").hidden = true;
    this.#q("#edit-toggle").hidden = !this.#form.editable || request.kind === "unknown" || !!quorumOf(interrupt);
    this.#q("#edit-toggle").setAttribute("aria-expanded", "false");
    this.#dialog.dataset["state"] = request.kind === "unknown" ? "unknown" : "asking";
    this.#setApproveEnabled(true);
    this.#startTimer(interrupt.expiresAt);
    if (!this.#dialog.open) {
      this.#returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      this.#dialog.showModal();
    }
    const first =
      { expired: "#approval-dismiss", unknown: "#unknown-cancel" }[this.#dialog.dataset["state"] ?? ""] ?? "#deny";
    this.#q<HTMLButtonElement>(first).focus();
  }

  /** Closes without answering (the run stays paused). */
  close(): void {
    if (this.#dialog.open) this.#dialog.close();
  }

  #answer(a: DialogAnswer): void {
    const onAnswer = this.#onAnswer;
    this.#onAnswer = undefined;
    this.current = undefined;
    this.close();
    onAnswer?.(a);
  }

  #approve(scope: Scope): void {
    const request = this.#request;
    if (!request || this.#dialog.dataset["state"] !== "asking") return;
    const a: DialogAnswer & { approved: boolean } = { approved: true, scope };
    if (!this.#q("#approval-edit-box").hidden) {
      const checked = this.#validate();
      if (!checked) return;
      if (JSON.stringify(checked) !== JSON.stringify(request.input)) a.editedArgs = checked;
    }
    this.#answer(a);
  }

  #toggleEdit(): void {
    const box = this.#q("#approval-edit-box");
    box.hidden = !box.hidden;
    this.#q("#edit-toggle").setAttribute("aria-expanded", String(!box.hidden));
    if (box.hidden) {
      // Closing the editor drops the edit: what is approved is what was asked.
      this.#form.show(this.#request?.tool ?? "", this.#request?.input ?? {});
      this.#describe(this.#request?.input ?? {});
      this.#setApproveEnabled(true);
    } else box.querySelector<HTMLElement>("input, select")?.focus();
  }

  /** The headline and facts, in words, for the arguments shown (the request's, or a valid edit). */
  #describe(input: Record<string, unknown>): void {
    const words = actionWords(this.#request?.tool ?? "", input);
    this.#q("#approval-title").textContent = words.headline;
    this.#q<HTMLDListElement>("#approval-args").replaceChildren(
      ...words.facts.flatMap(([k, v]) => [
        Object.assign(document.createElement("dt"), { textContent: k }),
        Object.assign(document.createElement("dd"), { textContent: v }),
      ]),
    );
  }

  #validate(): Record<string, unknown> | undefined {
    const checked = this.#form.check();
    if (checked.ok) this.#describe(checked.value);
    this.#setApproveEnabled(checked.ok);
    return checked.ok ? checked.value : undefined;
  }

  #setApproveEnabled(enabled: boolean): void {
    for (const b of this.#dialog.querySelectorAll<HTMLButtonElement>("button[data-scope]")) b.disabled = !enabled;
  }

  #startTimer(expiresAt: string | undefined): void {
    this.#stopTimer();
    const box = this.#q("#approval-countdown");
    const deadline = expiresAt ? Date.parse(expiresAt) : NaN;
    box.hidden = Number.isNaN(deadline);
    if (box.hidden) return;
    const bar = this.#q<HTMLProgressElement>("#approval-countdown progress");
    const total = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    bar.max = total;
    const tick = () => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      bar.value = left;
      const text = this.#q("#approval-countdown-text");
      if (left > 0) {
        text.textContent = `Expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
        box.classList.toggle("urgent", left <= 10);
        return;
      }
      text.textContent = `Expired at ${new Date(deadline).toLocaleTimeString()}. It can no longer be approved.`;
      this.#dialog.dataset["state"] = "expired";
      // It no longer asks: the title and message say what became of the request.
      const title = this.#q("#approval-title");
      const asked = (title.textContent ?? "").replace(/\?$/, "");
      title.textContent = "This request expired";
      this.#q("#approval-message").textContent =
        `“${asked}” was not answered in time, so it did not run and can no longer be approved.`;
      this.#stopTimer();
      if (this.#dialog.open && this.#dialog.contains(document.activeElement))
        this.#q<HTMLButtonElement>("#approval-dismiss").focus();
    };
    tick();
    if (this.#dialog.dataset["state"] !== "expired") this.#timer = setInterval(tick, 250);
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** Whether the person is typing in a text field outside `dialog` (the composer, say). */
function typingElsewhere(dialog: HTMLDialogElement): boolean {
  const now = document.activeElement;
  return now instanceof HTMLElement && !dialog.contains(now) && now.matches("input, textarea, [contenteditable]");
}
