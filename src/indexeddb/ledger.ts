/**
 * The execution ledger of a page: IndexedDB for the record, Web Locks for who is running a call now.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { looseObject } from "../agent/shared/lean-schemas.js";
import { createStore, type UseStore } from "idb-keyval";
import { jsonValueSchema } from "../agent/interrupts/interrupt.js";
import type { ClaimOptions, ClaimOutcome, ExecutionLedger, LedgerResult } from "../agent/ledger/ledger.js";
import { decideClaim, decideSettle, releasable, type LedgerRow } from "../agent/ledger/claim-rule.js";

/** Options of {@link IndexedDbExecutionLedger}. */
export interface IndexedDbExecutionLedgerOptions {
  /** Database name. Default `"kaboo-workflows-ledger"` (idb-keyval keeps one object store per database). */
  dbName?: string;
  /** Object store name. Default `"calls"`. */
  storeName?: string;
  /** A ready idb-keyval store instead of `createStore(dbName, storeName)`. */
  customStore?: UseStore;
  /**
   * The Web Locks manager. Default `navigator.locks` where it exists; `null` trusts leases alone
   * (a call whose page died then reads `running` until its lease ends, then `unknown`).
   */
  locks?: LockManager | null;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

const resultSchema = z.object({
  status: z.literal(["success", "error"]),
  content: z.array(looseObject({ type: z.string() })),
  structuredContent: z.optional(jsonValueSchema),
});
// What another tab (or an older build) wrote is input: a record that does not parse is treated as
// a claim of unknown outcome, never as "not run". The records keep this wire shape (tabs of an older
// build read them too); the rule itself works on a LedgerRow.
const recordSchema = z.union([
  z.object({ state: z.literal("claimed"), token: z.string(), claimedAt: z.number(), leaseExpiresAt: z.number() }),
  z.object({ state: z.literal("done"), token: z.string(), result: resultSchema }),
]);

/** What the store keeps under a call's key. */
type StoredRecord =
  | { state: "claimed"; token: string; claimedAt: number; leaseExpiresAt: number }
  | { state: "done"; token: string; result: LedgerResult };

/** A stored record as the claim rule's row. */
function readRecord(value: unknown): LedgerRow | undefined {
  if (value === undefined) return undefined;
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) return { token: "", claimedAt: 0, leaseExpiresAt: 0 };
  const r = parsed.data;
  return r.state === "done"
    ? { token: r.token, claimedAt: 0, leaseExpiresAt: 0, result: r.result as unknown as LedgerResult }
    : { token: r.token, claimedAt: r.claimedAt, leaseExpiresAt: r.leaseExpiresAt };
}

/** A claim rule's row in the stored wire shape. */
function toRecord(row: LedgerRow): StoredRecord {
  return row.result === undefined
    ? { state: "claimed", token: row.token, claimedAt: row.claimedAt, leaseExpiresAt: row.leaseExpiresAt }
    : { state: "done", token: row.token, result: row.result };
}

/** How long a claim waits for a holder's lock to go before it reads the call as running. */
const HOLDER_GRACE_MS = 1_500;

/** Whether the lock `name` is (or becomes) free within {@link HOLDER_GRACE_MS}: its holder is gone. */
async function freesWithin(locks: LockManager, name: string): Promise<boolean> {
  try {
    return await locks.request(name, { signal: AbortSignal.timeout(HOLDER_GRACE_MS) }, () => true);
  } catch {
    return false;
  }
}

/**
 * An {@link ExecutionLedger} in IndexedDB, shared by every tab of the origin. Each claim, settle
 * and release is one readwrite transaction (atomic across tabs). Where Web Locks exist, the tab
 * that claims a call holds a lock named after it until it settles: a second tab reads `running`
 * at once, and when the holder's page dies (reload, closed tab) the browser drops the lock, so the
 * next claim reads `unknown` without waiting for the lease to run out.
 *
 * @example
 * ```ts
 * const ledger = new IndexedDbExecutionLedger();
 * const agent = new KabooAgent({ agent: () => new Agent({ model, tools }), ledger });
 * ```
 */
export class IndexedDbExecutionLedger implements ExecutionLedger {
  readonly #store: UseStore;
  readonly #locks: LockManager | undefined;
  readonly #lockPrefix: string;
  readonly #now: () => number;
  /** The calls this document holds, by key + token: how to let go, and when the lock is gone. */
  readonly #held = new Map<string, { release: () => void; gone: Promise<unknown> }>();

  /**
   * @param options - `dbName` (default `"kaboo-workflows-ledger"`), `storeName` (default `"calls"`),
   *   `customStore`, `locks` (default `navigator.locks`), `now` (default `Date.now`).
   */
  constructor(options: IndexedDbExecutionLedgerOptions = {}) {
    const dbName = options.dbName ?? "kaboo-workflows-ledger";
    const storeName = options.storeName ?? "calls";
    this.#store = options.customStore ?? createStore(dbName, storeName);
    const nav = (globalThis as { navigator?: { locks?: LockManager } }).navigator;
    this.#locks = options.locks === null ? undefined : (options.locks ?? nav?.locks);
    this.#lockPrefix = `kaboo-ledger:${dbName}/${storeName}:`;
    this.#now = options.now ?? Date.now;
  }

  /** {@inheritDoc index!ExecutionLedger.claim} */
  claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome> {
    const locks = this.#locks;
    if (!locks) return this.#claimTx(key, options, undefined, crypto.randomUUID());
    // Each claim holds a lock named after its own token, taken before its record is written: a
    // record whose token's lock is not held belongs to a page that died (the browser dropped it).
    const token = crypto.randomUUID();
    return new Promise<ClaimOutcome>((resolve, reject) => {
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      const gone = locks
        .request(this.#lockName(key, token), async () => {
          let { outcome, holder } = await this.#judge(locks, key, options, token);
          // A page being reloaded lets go of its locks a moment after the next document has started:
          // a holder seen alive by its lock alone is given a moment to be gone before "running" stands.
          if (outcome.status === "running" && holder !== undefined && (await freesWithin(locks, holder)))
            ({ outcome } = await this.#judge(locks, key, options, token));
          if (outcome.status !== "claimed") return resolve(outcome);
          this.#held.set(key + token, { release, gone });
          resolve(outcome);
          await held;
        })
        .catch(reject);
    });
  }

  /** One claim decision against the locks held now; `holder` is the lock of a claim judged alive by it. */
  async #judge(
    locks: LockManager,
    key: string,
    options: ClaimOptions | undefined,
    token: string,
  ): Promise<{ outcome: ClaimOutcome; holder: string | undefined }> {
    const asOf = this.#now();
    const live = new Set(((await locks.query()).held ?? []).map((l) => l.name));
    let holder: string | undefined;
    const alive = (r: { token: string; claimedAt: number }) => {
      // A claim written after the snapshot was taken is too new to judge: its holder is alive.
      if (r.claimedAt >= asOf) return true;
      const name = this.#lockName(key, r.token);
      if (!live.has(name)) return false;
      holder = name;
      return true;
    };
    const outcome = await this.#claimTx(key, options, alive, token);
    return { outcome, holder };
  }

  /** {@inheritDoc index!ExecutionLedger.settle} */
  async settle(key: string, token: string, result: LedgerResult): Promise<void> {
    try {
      await this.#tx(key, (record) => decideSettle(record, token, result));
    } finally {
      await this.#let(key, token);
    }
  }

  /** {@inheritDoc index!ExecutionLedger.release} */
  async release(key: string, token: string): Promise<void> {
    try {
      await this.#tx(key, (row) => (releasable(row, token) ? null : undefined));
    } finally {
      await this.#let(key, token);
    }
  }

  async #let(key: string, token: string): Promise<void> {
    const held = this.#held.get(key + token);
    if (!held) return;
    this.#held.delete(key + token);
    held.release();
    // A claim right after this one returns must find the lock free, or it would read "running".
    await held.gone;
  }

  async #claimTx(
    key: string,
    options: ClaimOptions | undefined,
    alive: ((r: { token: string; claimedAt: number }) => boolean) | undefined,
    token: string,
  ): Promise<ClaimOutcome> {
    let outcome: ClaimOutcome | undefined;
    const now = this.#now();
    await this.#tx(key, (record) => {
      const decided = decideClaim(record, now, options, token, alive);
      outcome = decided.outcome;
      return decided.write;
    });
    return outcome as ClaimOutcome;
  }

  #lockName(key: string, token: string): string {
    return `${this.#lockPrefix}${key}:${token}`;
  }

  /** One readwrite transaction: `decide` sees the record; a record is written, `null` deletes, `undefined` leaves it. */
  #tx(key: string, decide: (row: LedgerRow | undefined) => LedgerRow | null | undefined): Promise<void> {
    return this.#store("readwrite", (store) => {
      return new Promise<void>((resolve, reject) => {
        const req = store.get(key);
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          try {
            const next = decide(readRecord(req.result));
            if (next === null) store.delete(key);
            else if (next !== undefined) store.put(toRecord(next), key);
          } catch (error) {
            reject(error);
            return;
          }
          store.transaction.oncomplete = () => resolve();
          store.transaction.onerror = () => reject(store.transaction.error);
          store.transaction.onabort = () => reject(store.transaction.error);
        };
      });
    });
  }
}
