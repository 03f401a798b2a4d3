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
 * Whether `ledger` is a memory ledger whose `claim` is its own: it is asked through `claimNow`, which also
 * takes a CallName. A subclass that overrides the method is always asked through it, with the key.
 * (One function per method, each reading its method by name: a call of the adapter or the runner asks these.)
 */
function claimsNow(ledger: ExecutionLedger): ledger is MemoryExecutionLedger {
  return ledger instanceof MemoryExecutionLedger && ledger.claim === memory.claim;
}

/** As {@link claimsNow}, for `settle` (`settleNow`). */
function settlesNow(ledger: ExecutionLedger): ledger is MemoryExecutionLedger {
  return ledger instanceof MemoryExecutionLedger && ledger.settle === memory.settle;
}

/** As {@link claimsNow}, for `release` (its own `release` takes a CallName). */
function releasesNow(ledger: ExecutionLedger): ledger is MemoryExecutionLedger {
  return ledger instanceof MemoryExecutionLedger && ledger.release === memory.release;
}

/**
 * Whether `ledger` is a `MemoryExecutionLedger` as it ships (not a subclass, no method replaced): it is
 * asked with the call itself. Any other ledger is asked with execution keys, as it always was.
 */
export function asShipped(ledger: ExecutionLedger): ledger is MemoryExecutionLedger {
  // Its prototype being the memory ledger's makes it one (what `instanceof` asks first).
  return (
    Object.getPrototypeOf(ledger) === memory &&
    ledger.claim === memory.claim &&
    ledger.settle === memory.settle &&
    ledger.release === memory.release
  );
}

const keyOf = (name: string | CallName) => (typeof name === "string" ? name : name.key);

/** Claims `name` in `ledger`: synchronously where a memory ledger's `claim` is its own. */
export function claimIn(
  ledger: ExecutionLedger,
  name: string | CallName,
  options: ClaimOptions | undefined,
): ClaimOutcome | Promise<ClaimOutcome> {
  return claimsNow(ledger) ? ledger.claimNow(name, options) : ledger.claim(keyOf(name), options ?? {});
}

/** Settles `name` in `ledger`: synchronously where a memory ledger's `settle` is its own. */
export function settleIn(
  ledger: ExecutionLedger,
  name: string | CallName,
  token: string,
  result: LedgerResult,
): undefined | Promise<void> {
  if (!settlesNow(ledger)) return ledger.settle(keyOf(name), token, result);
  ledger.settleNow(name, token, result);
  return undefined;
}

/** Releases `name`'s claim in `ledger`. */
export function releaseIn(ledger: ExecutionLedger, name: string | CallName, token: string): Promise<void> {
  return releasesNow(ledger) ? ledger.release(name, token) : ledger.release(keyOf(name), token);
}
