/**
 * What the page reads from an open question (an AG-UI interrupt's `metadata.kaboo`): an approval
 * (ApprovalRequest) or a call whose outcome was lost (OutcomeUnknownRequest), and the answers a
 * person can give to it, on the card or in the dialog.
 */
import type { Interrupt as AguiInterrupt } from "@ag-ui/core";
import * as z from "zod/v4";
import { OUTCOME_UNKNOWN, type OutcomeAction } from "kaboo-workflows";

/** A scope an approval can be given for. */
export type Scope = "once" | "thread" | "always";

/** The person's answer: an approval's, or what to do with a call whose outcome is unknown. */
export type DialogAnswer =
  | { approved: boolean; scope: Scope; editedArgs?: Record<string, unknown> }
  | { action: OutcomeAction };

/** An open question, as the page shows it. */
export interface Request {
  /** An approval, or a call that may or may not have run. */
  kind: "approval" | "unknown";
  tool: string;
  input: Record<string, unknown>;
  subject: { key: string; label: string } | null;
  scopes: Scope[];
  message: string;
  /** Asked again because an edit changed what the call is about (its recipient, its account). */
  again: boolean;
}

const requestSchema = z.looseObject({
  tool: z.string(),
  input: z.record(z.string(), z.unknown()).catch({}),
  subject: z.object({ key: z.string(), label: z.string() }).nullable().catch(null),
  scopes: z
    .array(z.enum(["once", "thread", "always"]))
    .min(1)
    .catch(["once"]),
  message: z.string().catch(""),
});

/** Reads the request behind an interrupt; `undefined` when it is not one the page asks. */
export function approvalRequest(i: AguiInterrupt): Request | undefined {
  if (i.reason !== "tool_call" && i.reason !== OUTCOME_UNKNOWN) return undefined;
  const parsed = requestSchema.safeParse((i.metadata as { kaboo?: unknown } | undefined)?.kaboo);
  if (!parsed.success) return undefined;
  return {
    ...parsed.data,
    kind: i.reason === "tool_call" ? "approval" : "unknown",
    message: parsed.data.message || i.message || `Allow ${parsed.data.tool}?`,
    // InterruptHook names the question about an edit that changed the subject `…:edit:<hash>`.
    again: i.id.includes(":edit:"),
  };
}

/** The decisions a card's buttons carry (`data-decision`). */
export const DECISIONS = [
  "deny",
  "once",
  "thread",
  "always",
  "cancel",
  "treat_as_done",
  "run_again",
  "dismiss",
] as const;
/** One of {@link DECISIONS}. */
export type Decision = (typeof DECISIONS)[number];

/** The answer a decision gives; `undefined` for "dismiss" (an expired request: it is cancelled). */
export function answerOf(decision: Decision): DialogAnswer | undefined {
  switch (decision) {
    case "deny":
      return { approved: false, scope: "once" };
    case "once":
    case "thread":
    case "always":
      return { approved: true, scope: decision };
    case "cancel":
    case "treat_as_done":
    case "run_again":
      return { action: decision };
    case "dismiss":
      return undefined;
    default:
      return decision satisfies never;
  }
}
