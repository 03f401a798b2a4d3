/**
 * Small records the approval function keeps in an execution ledger, so they hold wherever the
 * ledger does (one process, a page's IndexedDB, a thread store at the edge): the question as it was
 * asked (its deadline and the scopes shown) and the decision one answer made (read once, so a
 * replayed answer cannot grant again after a revocation).
 *
 * @module
 */
import { answerKey, executionKey, type ExecutionLedger } from "../agent/ledger/ledger.js";
import type { JsonValue } from "../agent/messages/messages.js";

/** How often a record another request is writing right now is looked at again, and how long between. */
const WAIT_TRIES = 50;
const WAIT_MS = 20;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The ledger key of the question asked about one call (thread, call id and arguments: a later call
 * that reuses the id with other arguments is another question).
 * @param threadId - The conversation.
 * @param toolCallId - The call.
 * @param input - Its arguments.
 */
export function questionKey(threadId: string, toolCallId: string, input: unknown): string {
  return answerKey(threadId, `ai-sdk:ask:${executionKey({ threadId, toolUseId: toolCallId, input })}`);
}

/**
 * The ledger key of the decision one approval response made.
 * @param threadId - The conversation.
 * @param approvalId - The AI SDK's approval id.
 */
export function decisionKey(threadId: string, approvalId: string): string {
  return answerKey(threadId, `ai-sdk:answer:${approvalId}`);
}

/**
 * The value kept under `key`, written by `make` when there is none: the first writer wins, and a
 * writer that died before it wrote is taken over.
 * @param ledger - Where it is kept.
 * @param key - Its key.
 * @param make - Makes the value (called at most once per call of this function).
 * @returns The value kept, or `undefined` when another writer held it for the whole wait.
 */
export async function keepOnce<T extends JsonValue>(
  ledger: ExecutionLedger,
  key: string,
  make: () => T | Promise<T>,
): Promise<T | undefined> {
  for (let i = 0; i < WAIT_TRIES; i++) {
    const outcome = await ledger.claim(key, { takeOverUnknown: true });
    if (outcome.status === "done") return outcome.result.structuredContent as T;
    if (outcome.status === "claimed") {
      let value: T;
      try {
        value = await make();
      } catch (error) {
        await ledger.release(key, outcome.token);
        throw error;
      }
      await ledger.settle(key, outcome.token, { status: "success", content: [], structuredContent: value });
      return value;
    }
    await pause(WAIT_MS);
  }
  return undefined;
}

/**
 * The value kept under `key`, without writing one.
 * @param ledger - Where it is kept.
 * @param key - Its key.
 * @returns The value, or `undefined` when none was kept (or its writer never finished).
 */
export async function readKept(ledger: ExecutionLedger, key: string): Promise<JsonValue | undefined> {
  for (let i = 0; i < WAIT_TRIES; i++) {
    const outcome = await ledger.claim(key);
    if (outcome.status === "done") return outcome.result.structuredContent;
    if (outcome.status === "claimed") {
      await ledger.release(key, outcome.token);
      return undefined;
    }
    if (outcome.status === "unknown") return undefined;
    await pause(WAIT_MS);
  }
  return undefined;
}

/**
 * The decision an answer made, kept in the ledger under {@link decisionKey}: read by
 * `kabooToolApproval` on a replay, and by `withLedger` for the edit it runs with.
 */
export type Decided = {
  approved: boolean;
  note: string;
  /** The call decided (its `executionKey`): the decision answers this call only. Absent in older records. */
  call?: string;
  /** The person's edited arguments, checked against the tool's schema, that the call runs with. */
  editedArgs?: JsonValue;
};
