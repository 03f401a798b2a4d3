/**
 * The approval dialog, loaded the first time someone opens it ("Details and edit" on a card): the
 * page people first see decides on the card and does not wait for the dialog's code.
 */
import type { Interrupt as AguiInterrupt } from "@ag-ui/core";
import type { ApprovalDialog } from "./approval-dialog.js";
import type { DialogAnswer } from "./approval-request.js";

/** The `<dialog>` and, once loaded, the code that drives it. */
export class LazyDialog {
  readonly element: HTMLDialogElement;
  #dialog: Promise<ApprovalDialog> | undefined;

  constructor(element: HTMLDialogElement) {
    this.element = element;
  }

  /** Whether the dialog is showing. */
  get open(): boolean {
    return this.element.open;
  }

  /** Closes without answering. */
  close(): void {
    if (this.element.open) this.element.close();
  }

  /**
   * Shows a question (loading the dialog first if needed).
   * @param onAnswer - Called once with the person's answer.
   */
  async show(i: AguiInterrupt, onAnswer: (a: DialogAnswer) => void): Promise<void> {
    this.#dialog ??= import("./approval-dialog.js").then((m) => new m.ApprovalDialog(this.element));
    (await this.#dialog).show(i, onAnswer);
  }
}
