/**
 * How the runner and the AI SDK adapter ask a ledger about a call: a `MemoryExecutionLedger` as it ships
 * synchronously and by the call's text (its key hashed only when read), any other ledger by key.
 *
 * @module
 */
import { keyOfCall, type ClaimOptions, type ClaimOutcome, type ExecutionLedger, type LedgerResult } from "./ledger.js";
import { MemoryExecutionLedger, type CallName } from "./memory-ledger.js";

/** A call named by its text (`callText`), its execution key hashed when first read. */
export class NamedCall implements CallName {
  #key: string | undefined;

  /** @param text - The call's text (`callText`), which its key hashes. */
  constructor(readonly text: string) {}

  /**
   * The call's execution key (the tool's idempotency key): hashed when first read, since the default
   * ledger knows the call by its text, and most tools never read it.
   */
  get key(): string {
    this.#key ??= keyOfCall(this.text);
    return this.#key;
  }
}

const memory = MemoryExecutionLedger.prototype;

/**
 * Whether `ledger` is a memory ledger whose `method` is its own: it is asked through its synchronous form
 * (`claimNow`, `settleNow`), which also takes a CallName. A subclass that overrides the method is always asked
 * through it, with the key.
 */
function answersNow(ledger: ExecutionLedger, method: "claim" | "settle" | "release"): ledger is MemoryExecutionLedger {
  return ledger instanceof MemoryExecutionLedger && ledger[method] === memory[method];
}

/**
 * Whether `ledger` is a `MemoryExecutionLedger` as it ships (not a subclass, no method replaced): it is
 * asked with the call itself. Any other ledger is asked with execution keys, as it always was.
 */
export function asShipped(ledger: ExecutionLedger): ledger is MemoryExecutionLedger {
  return (
    Object.getPrototypeOf(ledger) === memory &&
    answersNow(ledger, "claim") &&
    answersNow(ledger, "settle") &&
    answersNow(ledger, "release")
  );
}

const keyOf = (name: string | CallName) => (typeof name === "string" ? name : name.key);

/** Claims `name` in `ledger`: synchronously where a memory ledger's `claim` is its own. */
export function claimIn(
  ledger: ExecutionLedger,
  name: string | CallName,
  options: ClaimOptions | undefined,
): ClaimOutcome | Promise<ClaimOutcome> {
  return answersNow(ledger, "claim") ? ledger.claimNow(name, options) : ledger.claim(keyOf(name), options ?? {});
}

/** Settles `name` in `ledger`: synchronously where a memory ledger's `settle` is its own. */
export function settleIn(
  ledger: ExecutionLedger,
  name: string | CallName,
  token: string,
  result: LedgerResult,
): undefined | Promise<void> {
  if (!answersNow(ledger, "settle")) return ledger.settle(keyOf(name), token, result);
  ledger.settleNow(name, token, result);
  return undefined;
}

/** Releases `name`'s claim in `ledger`. */
export function releaseIn(ledger: ExecutionLedger, name: string | CallName, token: string): Promise<void> {
  return answersNow(ledger, "release") ? ledger.release(name, token) : ledger.release(keyOf(name), token);
}
