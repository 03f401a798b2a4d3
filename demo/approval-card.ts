/**
 * The approval card in the conversation, where the person decides: the action in words, the facts,
 * why it asks again (an edit changed the recipient), Deny / Approve and — only when the request
 * offers them — the choices that remember, each saying what it covers. "Details" opens the dialog,
 * the focused view of the same decision (with the editor). A call whose outcome was lost asks "Did
 * the transfer of €5.00 to Bob go through?"; a request past its deadline says it expired and can
 * only be dismissed.
 */
import type { Interrupt as AguiInterrupt } from "@ag-ui/core";
import { actionWords, outcomeQuestion } from "./actions.js";
import { approvalRequest, type Decision } from "./approval-request.js";
import { fourEyesNote, waitsForOther } from "./four-eyes.js";

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function decide(i: AguiInterrupt, decision: Decision, text: string, className: string): HTMLButtonElement {
  const b = el("button", className, text);
  b.type = "button";
  Object.assign(b.dataset, { action: "decide", decision, interruptId: i.id });
  return b;
}

/** Whether an open request is past its deadline. */
export function lapsed(i: AguiInterrupt, now = Date.now()): boolean {
  return i.expiresAt !== undefined && Date.parse(i.expiresAt) <= now;
}

/** Why it asks again, in words, when an edit changed what the call is about. */
function againReason(tool: string, input: Record<string, unknown>): string {
  const to = String(input["to"] ?? "");
  const whom = to ? to.charAt(0).toUpperCase() + to.slice(1) : "the new recipient";
  if (tool === "move_money")
    return `You changed the account, so this asks again: a yes for the other account does not cover ${to}.`;
  return `You changed the recipient, so this asks again: your yes was for someone else, not ${whom}.`;
}

/**
 * Fills an awaiting card's body.
 * @param card - The tool row (its head is already there).
 * @param i - The open question.
 * @param args - The call's arguments (the request's own, e.g. an edit, win).
 */
export function fillCard(card: HTMLElement, i: AguiInterrupt, tool: string, args: Record<string, unknown>): void {
  const request = approvalRequest(i);
  const input = request && Object.keys(request.input).length ? request.input : args;
  const words = actionWords(tool, input);
  const headline = el(
    "p",
    "card-headline",
    request?.kind === "unknown" ? outcomeQuestion(tool, input) : words.headline,
  );
  headline.id = `q-${i.id.replace(/[^\w-]/g, "_")}`;
  card.setAttribute("role", "group");
  card.setAttribute("aria-labelledby", headline.id);
  card.append(headline);
  if (request?.again) card.append(el("p", "card-reason", againReason(tool, input)));
  const fourEyes = fourEyesNote(i);
  if (fourEyes) card.append(el("p", "card-reason four-eyes", fourEyes));
  const dl = el("dl", "facts");
  for (const [k, v] of words.facts) dl.append(el("dt", undefined, k), el("dd", undefined, v));
  card.append(dl);
  const actions = el("div", "card-actions");
  if (lapsed(i)) {
    card.append(
      el("p", "card-note", "This request expired before it was answered, so it cannot be approved. It did not run."),
    );
    actions.append(decide(i, "dismiss", "Dismiss", "primary small"));
  } else if (request?.kind === "unknown") {
    actions.append(
      decide(i, "cancel", "Cancel it", "ghost small"),
      decide(i, "treat_as_done", "It went through", "secondary small"),
      decide(i, "run_again", "Run it again", "primary small"),
    );
  } else if (waitsForOther(i)) {
    actions.append(decide(i, "deny", "Withdraw", "ghost small"));
  } else {
    actions.append(decide(i, "deny", "Deny", "ghost small"), decide(i, "once", "Approve", "primary small"));
    if (i.expiresAt)
      actions.append(el("span", "card-deadline", `Answer by ${new Date(i.expiresAt).toLocaleTimeString()}`));
  }
  card.append(actions);
  const remember =
    request && !lapsed(i) && request.kind === "approval" ? request.scopes.filter((s) => s !== "once") : [];
  if (remember.length) {
    const group = el("div", "card-remember");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", `Approve and remember, for ${request?.subject?.label ?? tool}`);
    const covers = request?.subject?.label ?? tool;
    if (remember.includes("thread")) group.append(decide(i, "thread", "Approve for this conversation", "ghost small"));
    if (remember.includes("always")) group.append(decide(i, "always", `Always approve ${covers}`, "ghost small"));
    card.append(group);
  }
  const details = el("button", "link small-text", lapsed(i) ? "Details" : "Details and edit");
  details.type = "button";
  Object.assign(details.dataset, { action: "review", interruptId: i.id });
  card.append(details);
}
