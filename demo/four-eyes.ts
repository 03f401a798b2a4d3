/**
 * Four eyes, as the page shows it: a wire over 10,000 needs a second person. The gate's request
 * carries who asked and who approved so far (`metadata.kaboo.approvals`); the requester's card
 * waits for the other person (it can only withdraw), the other person's card approves.
 */
import type { Interrupt as AguiInterrupt } from "@ag-ui/core";
import { approvalRequest } from "./approval-request.js";
import { formatMoney } from "./money.js";
import { persona } from "./persona.js";

/** A wire above this amount (in its own currency) needs a second person's approval. */
export const FOUR_EYES_OVER = 10_000;

/** The quorum of a request: how many approvals, who asked, who approved. */
export interface Quorum {
  required: number;
  requestedBy: string | null;
  approvedBy: string[];
}

/** The quorum of an open question, when it needs more than its requester's word. */
export function quorumOf(i: AguiInterrupt): Quorum | undefined {
  const q = (i.metadata as { kaboo?: { approvals?: unknown } } | undefined)?.kaboo?.approvals;
  if (typeof q !== "object" || q === null) return undefined;
  const { required, requestedBy, approvedBy } = q as Record<string, unknown>;
  if (typeof required !== "number") return undefined;
  return {
    required,
    requestedBy: typeof requestedBy === "string" ? requestedBy : null,
    approvedBy: Array.isArray(approvedBy)
      ? approvedBy.flatMap((a) => (typeof a?.principal === "string" ? [a.principal as string] : []))
      : [],
  };
}

/** Whether this tab's person asked for a four-eyes request (then they wait, and may withdraw). */
export function waitsForOther(i: AguiInterrupt): boolean {
  return quorumOf(i)?.requestedBy === persona();
}

/** The card's status line of a four-eyes request, for this tab's person. */
export function fourEyesStatus(i: AguiInterrupt): string | undefined {
  if (!quorumOf(i)) return undefined;
  return waitsForOther(i) ? "Needs a second person" : "Needs your approval";
}

/**
 * Who asked, as this tab's person says it: "You", or "Your partner" for the other person (each is
 * the other's partner), never the other person's own "You".
 */
export function askedBy(principal: string | null): string {
  if (principal === persona()) return "You";
  return principal === "you" || principal === "partner" ? "Your partner" : (principal ?? "Someone");
}

/** The threshold in the wire's own currency ("€10,000.00", "$10,000.00"): the demo has no exchange rates. */
export function threshold(i: AguiInterrupt): string {
  const currency = approvalRequest(i)?.input["currency"];
  return formatMoney(FOUR_EYES_OVER, typeof currency === "string" ? currency : "EUR").replace(/\.00$/, "");
}

/** What the card says about a four-eyes request, for this tab's person. */
export function fourEyesNote(i: AguiInterrupt): string | undefined {
  const q = quorumOf(i);
  if (!q) return undefined;
  const over = threshold(i);
  if (waitsForOther(i))
    return `A wire over ${over} needs a second person: you asked for it, so you cannot approve it. Your partner approves it in their own tab; this tab stays yours, so switching “Acting as” here cannot approve it. You can withdraw it.`;
  return `${askedBy(q.requestedBy)} asked for this wire. It is over ${over}, so it needs your approval before it runs.`;
}
