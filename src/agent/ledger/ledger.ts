/**
 * The execution ledger: the record that makes "a tool runs exactly once per approval" true.
 *
 * Every call that executes a tool is claimed here first and settled with its result after.
 * A claim is atomic: of two invocations that race for the same call, one gets `claimed` and the
 * other `running` (or `done` once the first settled). A claim whose lease ran out without a result
 * is `unknown`: the process died mid-call, and only a person can say whether it ran.
 *
 * This module holds the contract and the key; stores live beside it (memory) and in the
 * grants/stores entries (IndexedDB, Durable Objects, Deno KV).
 *
 * @module
 */
import { canonicalJson } from "../shared/canonical-json.js";
import type { JsonValue, ToolResultContent } from "../messages/messages.js";
import { sha256Hex } from "../shared/sha256.js";

/** What the ledger records for a finished call: the tool's output, without its `toolUseId`. */
export interface LedgerResult {
  status: "success" | "error";
  content: ToolResultContent[];
  structuredContent?: JsonValue;
}

/** The answer of {@link ExecutionLedger.claim}. */
export type ClaimOutcome =
  /** This caller holds the call now; run it, then `settle` (or `release` if it provably did not start). */
  | { status: "claimed"; token: string; leaseExpiresAt: number }
  /** The call finished before: do not run it, use the recorded result. */
  | { status: "done"; result: LedgerResult }
  /** Someone holds a live lease on the call: do not run it. */
  | { status: "running"; leaseExpiresAt: number }
  /**
   * A lease expired without a result: the call may or may not have run. Ask a person. `claimedAt` names
   * the lost claim (the question is about it): a claim that takes over a lost one must be later than it.
   */
  | { status: "unknown"; claimedAt: number };

/** Options of {@link ExecutionLedger.claim}. */
export interface ClaimOptions {
  /** How long the claim holds without a settle before it becomes `unknown`. Default {@link DEFAULT_LEASE_MS}. */
  leaseMs?: number;
  /**
   * Take over an `unknown` claim (a person answered "run it again"). Never takes over a live lease
   * or a settled call.
   */
  takeOverUnknown?: boolean;
  /**
   * Take over the call whose claim was abandoned under this token (its recorded result is the
   * abandoned marker, and a person answered "run it again"): the run again holds a claim of its own,
   * so a late result of the call let go, settled under the old token, records nothing over it. A ledger
   * of your own that does not know this option answers `done` with the marker, as before.
   */
  takeOverAbandoned?: string;
}

/** Default lease of a claim: 15 minutes (a tool that runs longer should renew or raise it). */
export const DEFAULT_LEASE_MS = 15 * 60 * 1000;

/**
 * An atomic record of which calls ran. Implementations: `MemoryExecutionLedger` (default),
 * `IndexedDbExecutionLedger` (the page, across tabs), and the edge thread stores.
 */
export interface ExecutionLedger {
  /** Atomically claims a call; see {@link ClaimOutcome}. */
  claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome>;
  /**
   * Records the result of a claimed call. Idempotent for the same token; settling again with the
   * same token replaces the result (a hook asked the runner to retry the call, and it ran again).
   * A token that no longer holds the call (taken over after its lease ran out) records nothing.
   */
  settle(key: string, token: string, result: LedgerResult): Promise<void>;
  /** Drops a claim whose call provably did not start (validation failed, cancelled before the call). */
  release(key: string, token: string): Promise<void>;
}

/** What identifies one call in the ledger. */
export interface ExecutionKeyParts {
  /** The conversation; `""` for an agent without a thread (its ledger is its own). */
  threadId: string;
  toolUseId: string;
  /** The call's arguments. The runner passes them as the model made the call, before hooks and edits. */
  input: unknown;
}

const KEY_PREFIX = "kw1-";

/**
 * The ledger key and `ToolContext.idempotencyKey` of a call: `kw1-` and the SHA-256 (hex) of the
 * canonical JSON of thread, tool-use id and arguments. The same call gets the same key across
 * retries, resumes and reloads; the runner keys the model's arguments, so an edit (or two tabs
 * answering one approval differently) never makes a second call of one tool use.
 * Short and opaque, so a tool can pass it on as a payment API's `Idempotency-Key` header.
 * Synchronous (the hash runs in JavaScript, not on WebCrypto's thread pool); the digest is the one
 * `crypto.subtle.digest("SHA-256", …)` gives, so keys stored by earlier versions still match.
 *
 * @param parts - Thread id, tool-use id and the validated input.
 * @returns `kw1-<64 hex digits>`.
 * @example
 * ```ts
 * const key = executionKey({ threadId: "t1", toolUseId: "call_1", input: { to: "bob", cents: 500 } });
 * ```
 */
export function executionKey(parts: ExecutionKeyParts): string {
  return keyOfCall(callText(parts));
}

/**
 * The text a call's execution key hashes: the canonical JSON of `[threadId, toolUseId, input]`. It names
 * the call as its key does (equal texts, equal keys), so the memory ledger can keep the runner's calls
 * under it and hash only when someone asks by key (see `MemoryExecutionLedger`).
 * @param parts - Thread id, tool-use id and input.
 * @returns The text, which starts with `[`.
 */
export function callText(parts: ExecutionKeyParts): string {
  // canonicalJson([threadId, toolUseId, input ?? null]), written out: the same text without an array.
  const { threadId, toolUseId, input } = parts;
  return `[${canonicalJson(threadId)},${canonicalJson(toolUseId)},${canonicalJson(input ?? null)}]`;
}

/**
 * The execution key of a {@link callText}.
 * @param text - The call's text.
 * @returns `kw1-<64 hex digits>`.
 */
export function keyOfCall(text: string): string {
  return KEY_PREFIX + sha256Hex(text);
}

/**
 * The ledger key under which the answer given to one interrupt is recorded (a handler without a
 * thread store records answers in its shared ledger, so a replayed pause cannot be answered
 * anew): `ka1-` and the SHA-256 (hex) of the canonical JSON of thread and interrupt id. Never equal
 * to an {@link executionKey}.
 *
 * @param threadId - The conversation.
 * @param interruptId - The interrupt answered.
 * @returns `ka1-<64 hex digits>`.
 */
export function answerKey(threadId: string, interruptId: string): string {
  return `ka1-${sha256Hex(canonicalJson(["answer", threadId, interruptId]))}`;
}
