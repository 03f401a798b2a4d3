/**
 * The execution ledger in memory: the default of every agent, and the reference for the others.
 *
 * @module
 */
import { decideClaim, decideSettle, releasable, type LedgerRow } from "./claim-rule.js";
import type { ClaimOptions, ClaimOutcome, ExecutionLedger, LedgerResult } from "./ledger.js";
import { keyOfCall } from "./ledger.js";

/** Options of {@link MemoryExecutionLedger}. */
export interface MemoryExecutionLedgerOptions {
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * Most calls kept; past it the oldest settled ones are forgotten, down to 15/16 of it (live claims stay).
   * Default 10,000.
   */
  maxEntries?: number;
}

/**
 * A call as the runner names it to a {@link MemoryExecutionLedger}: its text (what its execution key
 * hashes, `[threadId, toolUseId, input]` as canonical JSON) and that key, which the ledger reads only when
 * it needs it, so an object that hashes on first read is spared the hash. The ledger relies on
 * `text === callText(parts)` and `key === keyOfCall(text)`: a name made any other way could be one record under
 * its text and another under its key. The runner's own; not exported from the package.
 * @internal
 */
export interface CallName {
  /** The call's text (`callText`): it starts with `[`. */
  readonly text: string;
  /** The call's execution key: `kw1-` and the SHA-256 of `text`. */
  readonly key: string;
}

/**
 * An {@link ExecutionLedger} in a `Map`: atomic because a claim reads and writes in one
 * synchronous step. It lives as long as the agent (a reload forgets it; use
 * `IndexedDbExecutionLedger` in a page and a thread store at the edge).
 *
 * The runner names its calls by a `CallName` (internal) (the synchronous methods and `release` take one): the
 * ledger keeps them under their texts, never hashed, until the first string key comes (an execution key a
 * host computed), which hashes the texts kept so far, once; from then on it keeps every call under its
 * execution key. Either way a call's name and its execution key are one record.
 *
 * @example
 * ```ts
 * const ledger = new MemoryExecutionLedger();
 * const agent = new Agent({ model, tools, ledger });
 * ```
 */
export class MemoryExecutionLedger implements ExecutionLedger {
  #records = new Map<string, LedgerRow>();
  /** Whether the records are under the calls' texts (until the first string key comes). */
  #texts = true;
  readonly #now: () => number;
  readonly #max: number;
  /**
   * Claims taken so far. A token is compared only with the records of this map, so a counter makes it
   * unique where it counts (a random UUID per claim cost more than the rest of the claim).
   */
  #claims = 0;

  /** @param options - `now` (default `Date.now`), `maxEntries` (default 10,000). */
  constructor(options: MemoryExecutionLedgerOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#max = options.maxEntries ?? 10_000;
  }

  /** {@inheritDoc ExecutionLedger.claim} */
  async claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome> {
    return this.claimNow(key, options);
  }

  /**
   * {@link MemoryExecutionLedger.claim}, answered synchronously: the runner uses it (no promise per call)
   * unless a subclass overrides `claim`.
   * @param call - The call's execution key, or its `CallName` (the runner's).
   * @param options - As {@link ExecutionLedger.claim}'s.
   */
  claimNow(call: string | CallName, options?: ClaimOptions): ClaimOutcome {
    const key = this.#id(call);
    const { outcome, write } = decideClaim(this.#records.get(key), this.#now(), options, `m${++this.#claims}`);
    if (write) this.#records.set(key, write);
    return outcome;
  }

  /** {@inheritDoc ExecutionLedger.settle} */
  async settle(key: string, token: string, result: LedgerResult): Promise<void> {
    this.settleNow(key, token, result);
  }

  /**
   * {@link MemoryExecutionLedger.settle}, synchronously (see {@link MemoryExecutionLedger.claimNow}).
   * @param call - The call's execution key, or the runner's name for it.
   * @param token - The claim's token.
   * @param result - The call's result.
   */
  settleNow(call: string | CallName, token: string, result: LedgerResult): void {
    const key = this.#id(call);
    const next = decideSettle(this.#records.get(key), token, result);
    if (!next) return;
    // Re-inserted so the map's order is settle order: the oldest settled calls are dropped first.
    this.#records.delete(key);
    this.#records.set(key, next);
    if (this.#records.size > this.#max) this.#forgetOldest();
  }

  /**
   * Forgets the oldest settled calls (live claims stay), down to 15/16 of `maxEntries`: one pass for many
   * settles. A pass per settle cost each call past the bound 8-13 us instead of 2: a `Map` walked from its
   * start steps over every slot deleted before.
   */
  #forgetOldest(): void {
    const keep = this.#max - (this.#max >> 4);
    for (const [k, r] of this.#records) {
      if (this.#records.size <= keep) break;
      if (r.result !== undefined) this.#records.delete(k);
    }
  }

  /**
   * Where a call is kept: under its text while the records are under texts (a long text under its key,
   * so the map holds no large arguments), else under its execution key. The first string key puts every
   * record held under a text (a call's text starts with `[`, a key with `kw1-`) under its key, in the same
   * order.
   */
  #id(call: string | CallName): string {
    if (typeof call !== "string") return this.#texts && call.text.length <= 256 ? call.text : call.key;
    if (this.#texts) {
      this.#texts = false;
      this.#records = new Map([...this.#records].map(([k, r]) => [k[0] === "[" ? keyOfCall(k) : k, r]));
    }
    return call;
  }

  /**
   * {@inheritDoc ExecutionLedger.release}
   * @param call - The call's execution key, or the runner's name for it.
   * @param token - The claim's token.
   */
  async release(call: string | CallName, token: string): Promise<void> {
    const key = this.#id(call);
    if (releasable(this.#records.get(key), token)) this.#records.delete(key);
  }
}
