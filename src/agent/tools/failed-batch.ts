/**
 * What a tool batch that failed part way leaves behind: the calls that finished are kept (in the
 * transcript, or in the pause a failed resume keeps) and the error names which ran.
 *
 * @module
 */
import { ToolBatchError, describe } from "../../errors.js";
import type { Message, ToolResultBlock, ToolUseBlock } from "../messages/messages.js";
import type { PausedBatch } from "../interrupts/paused-batch.js";
import type { BatchFailure } from "./tool-executor.js";
import { errorResult } from "./tools.js";

/** The invocation state a failed batch updates (the loop's `Invocation`). */
export interface FailedBatchRun {
  /** Whether the batch is the paused one this run resumes. */
  readonly resumedBatch: boolean;
  keptBatch: PausedBatch | undefined;
  committed: boolean;
  lastAssistant: Message;
  append(...messages: Message[]): Promise<void>;
}

/** A batch in flight: the assistant message whose calls run, and the results already produced. */
export interface PendingBatch {
  message: Message;
  done: ToolResultBlock[];
}

/**
 * Keeps what a failed batch finished. A failed resume keeps its pause with those results (a retry
 * with the same answers runs only the calls that did not finish, and the ledger replays any that
 * finished meanwhile); a fresh batch that ran part way is closed in the transcript as it went.
 * @returns The error to throw: {@link ToolBatchError} naming what ran when some calls did, else the failure.
 */
export async function failedBatch(
  run: FailedBatchRun,
  pending: PendingBatch,
  failure: BatchFailure,
  stopAfterBatch: boolean,
): Promise<unknown> {
  const cause = failure.cause;
  const finished = failure.outcomes.flatMap((o) => (o.kind === "done" && !o.cutOff ? [o.result] : []));
  if (finished.length === 0) return cause;
  const calls = pending.message.content.filter((b): b is ToolUseBlock => b.type === "toolUse");
  if (run.resumedBatch) {
    run.keptBatch = {
      toolUseMessage: pending.message,
      toolResults: [...pending.done, ...finished],
      stopLoop: stopAfterBatch,
    };
  } else {
    run.committed = true;
    const byId = new Map(finished.map((r) => [r.toolUseId, r]));
    const note = `The run failed before this call finished (${describe(cause)}); it did not run.`;
    run.lastAssistant = pending.message;
    // The run already fails with `cause`; a hook failing on these messages must not hide it.
    await run
      .append(pending.message, {
        role: "user",
        content: calls.map((c) => byId.get(c.toolUseId) ?? errorResult(c.toolUseId, note)),
      })
      .catch(() => undefined);
  }
  const ranIds = new Set([...pending.done, ...finished].map((r) => r.toolUseId));
  const named = (c: ToolUseBlock) => ({ toolUseId: c.toolUseId, name: c.name });
  return new ToolBatchError(
    cause,
    calls.filter((c) => ranIds.has(c.toolUseId)).map(named),
    calls.filter((c) => !ranIds.has(c.toolUseId)).map(named),
  );
}
