/**
 * The claim rule and the settle rule of the execution ledger, over one record shape: written once,
 * here, and applied by every ledger (memory, IndexedDB) and every thread store (memory, Durable
 * Objects, Deno KV, and any store to come) inside its own atomic step (a synchronous map update, a
 * readwrite transaction, a SQL transaction, an atomic commit).
 *
 * A store's only jobs are to read the row, call {@link decideClaim} or {@link decideSettle}, and write
 * what they return in the same atomic step; how it keeps the row on disk is its own (IndexedDB keeps
 * its older wire shape, SQL keeps columns).
 *
 * @module
 */
import { DEFAULT_LEASE_MS, type ClaimOptions, type ClaimOutcome, type LedgerResult } from "./ledger.js";
import { abandonedClaim } from "./outcome-answer.js";

/**
 * One call in a ledger: who claimed it (`token`), when, until when the claim holds without a result,
 * and its `result` once settled. A row with a result is settled (`done`); one without is a claim.
 */
export interface LedgerRow {
  /** The token of the claim that holds the call (the one that may settle or release it). */
  token: string;
  /** Epoch ms of the claim. An outcome question names the lost claim it is about by this. */
  claimedAt: number;
  /** Epoch ms after which a claim without a result reads `unknown` (unless its holder is known alive). */
  leaseExpiresAt: number;
  /** The call's result, once settled. */
  result?: LedgerResult | undefined;
}

/**
 * What a claim answers given the row found, and the row to write when the caller now holds the call.
 *
 * `done` replays the recorded result (a copy); a live claim is `running`; a claim past its lease is
 * `unknown` unless `options.takeOverUnknown` (a person answered "run it again"), which takes it over
 * with a later `claimedAt`. A call settled with the abandoned marker of the claim
 * `options.takeOverAbandoned` names is taken over the same way (a new token: the late result of the
 * call let go settles nothing over the run again's).
 *
 * @param row - The stored row, or `undefined` (never claimed).
 * @param now - Epoch ms.
 * @param options - `leaseMs` (default {@link DEFAULT_LEASE_MS}), `takeOverUnknown` (default false).
 * @param token - The token to write when the caller wins. Default a random UUID.
 * @param holderAlive - Where the store can tell whether a claim's holder still runs (Web Locks), that
 *   decides instead of the lease: a live holder past its lease is still running the call, and taking
 *   it over would run it twice. Absent trusts the lease.
 * @returns The outcome, and `write` (only with `claimed`): the row the store must write.
 */
export function decideClaim(
  row: LedgerRow | undefined,
  now: number,
  options?: ClaimOptions,
  token?: string,
  holderAlive?: (row: LedgerRow) => boolean,
): { outcome: ClaimOutcome; write?: LedgerRow } {
  if (row?.result !== undefined) {
    if (!takesOverAbandoned(row.result, options))
      return { outcome: { status: "done", result: copyResult(row.result) } };
  } else if (row) {
    const expired = holderAlive ? !holderAlive(row) : row.leaseExpiresAt <= now;
    if (!expired) return { outcome: { status: "running", leaseExpiresAt: row.leaseExpiresAt } };
    if (!options?.takeOverUnknown) return { outcome: { status: "unknown", claimedAt: row.claimedAt } };
  }
  const write: LedgerRow = {
    token: token ?? crypto.randomUUID(),
    // Later than the lost claim it takes over, even on the same millisecond: an outcome question
    // names the claim it is about by its `claimedAt`.
    claimedAt: row ? Math.max(now, row.claimedAt + 1) : now,
    leaseExpiresAt: now + (options?.leaseMs ?? DEFAULT_LEASE_MS),
  };
  return { outcome: { status: "claimed", token: write.token, leaseExpiresAt: write.leaseExpiresAt }, write };
}

/**
 * Whether a claim takes over a settled call: its result is the abandoned marker of the claim
 * `options.takeOverAbandoned` names. (A store that keeps results apart asks this before it reads the row whole.)
 * @param result - The call's recorded result.
 * @param options - The claim's options.
 * @returns `true` when the claim takes the call over.
 */
export function takesOverAbandoned(result: LedgerResult, options: ClaimOptions | undefined): boolean {
  const token = options?.takeOverAbandoned;
  return token !== undefined && abandonedClaim(result)?.token === token;
}

/**
 * What a settle writes: the result (a copy), for the token that holds the call. Settling again with
 * the same token replaces the result (the call was retried); a token that no longer holds the call
 * (released, or taken over after its lease ran out) records nothing.
 *
 * @param row - The stored row, or `undefined`.
 * @param token - The settling claim's token.
 * @param result - The call's result.
 * @returns The row to write, or `undefined` when nothing changes.
 */
export function decideSettle(row: LedgerRow | undefined, token: string, result: LedgerResult): LedgerRow | undefined {
  if (row === undefined || row.token !== token) return undefined;
  return { token, claimedAt: row.claimedAt, leaseExpiresAt: row.leaseExpiresAt, result: copyResult(result) };
}

/**
 * Whether `release` may drop the row: only the holder's own, unsettled claim.
 *
 * @param row - The stored row.
 * @param token - The releasing claim's token.
 * @returns `true` to delete it.
 */
export function releasable(row: LedgerRow | undefined, token: string): boolean {
  return row !== undefined && row.result === undefined && row.token === token;
}

/**
 * A deep copy of a result, so a hook that edits the transcript's block in place cannot change the
 * record, nor a caller the record it was handed. Results are JSON with at most binary media, and
 * `structuredClone` of a small one cost a tenth of a tool call: plain objects and arrays are copied
 * here, anything else is cloned.
 */
function copyResult<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyResult) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  // A spread, then a copy of each object in it: half the cost of a loop that adds the keys one by one.
  // An own "__proto__" key (JSON.parse makes them) stays a key, not the copy's prototype: the spread
  // defines it, and setting an own data property only writes its value.
  const out = { ...value } as Record<string, unknown>;
  for (const k in out) {
    const v = out[k];
    if (typeof v === "object" && v !== null && Object.hasOwn(out, k)) out[k] = copyResult(v);
  }
  return out as T;
}
