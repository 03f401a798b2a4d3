/**
 * Errors of the AI SDK adapter: what a ledgered tool throws instead of running a call a second time.
 *
 * @module
 */
import { KabooError } from "../kaboo-error.js";

/**
 * A call was claimed before and never settled (the process died mid-call, or its lease ran out): it
 * may or may not have run. It is not run again; a person must say whether it went through. The AI
 * SDK turns it into the call's `tool-error`, which the model reads.
 */
export class CallOutcomeUnknownError extends KabooError {
  readonly code = "CALL_OUTCOME_UNKNOWN" as const;
  readonly tool: string;
  readonly toolCallId: string;
  /** When the lost claim was taken (epoch ms). */
  readonly claimedAt: number;
  constructor(tool: string, toolCallId: string, claimedAt: number) {
    super(
      `The call to "${tool}" (${toolCallId}) was started at ${new Date(claimedAt).toISOString()} and its outcome was never recorded: did this go through? It was not run again; ask the person to check before calling it again.`,
    );
    this.tool = tool;
    this.toolCallId = toolCallId;
    this.claimedAt = claimedAt;
  }
}

/**
 * A call ran before and failed; its recorded failure is replayed instead of running it again (a
 * replayed approval, a retried request).
 */
export class RecordedCallFailureError extends KabooError {
  readonly code = "RECORDED_CALL_FAILURE" as const;
  readonly tool: string;
  readonly toolCallId: string;
  constructor(tool: string, toolCallId: string, failure: string) {
    super(`The call to "${tool}" (${toolCallId}) already ran and failed; it was not run again: ${failure}`);
    this.tool = tool;
    this.toolCallId = toolCallId;
  }
}

/**
 * A person's edited arguments that cannot run: `invalid` (they do not pass the tool's input schema,
 * or are not an object), `four-eyes` (a rule with `approvals` takes no edits: its approvers signed the
 * model's arguments), or `not-recorded` (the approval's decision, with its checked edit, is not in the
 * ledger `withLedger` reads: give `kabooToolApproval` and `withLedger` the same ledger). Nothing runs;
 * the AI SDK's `generateText`/`streamText` fails with it (thrown by `kabooToolApproval`) or the call's
 * `tool-error` carries it (thrown by a ledgered `execute`).
 */
export class ApprovalEditError extends KabooError {
  readonly code = "APPROVAL_EDIT_REFUSED" as const;
  readonly tool: string;
  readonly toolCallId: string;
  readonly problem: "invalid" | "four-eyes" | "not-recorded";
  constructor(tool: string, toolCallId: string, problem: ApprovalEditError["problem"], detail: string) {
    super(`The edited arguments of the call to "${tool}" (${toolCallId}) were refused and nothing ran: ${detail}`);
    this.tool = tool;
    this.toolCallId = toolCallId;
    this.problem = problem;
  }
}
