/**
 * The execution ledger of one thread in Deno KV: a claim is one checked write of the call's row,
 * a settled result is stored as chunks that the checked row write makes visible.
 *
 * @module
 */
import type { ClaimOptions, ClaimOutcome, ExecutionLedger, LedgerResult } from "../../agent/ledger/ledger.js";
import { decideClaim, releasable, takesOverAbandoned, type LedgerRow } from "../../agent/ledger/claim-rule.js";
import { type LedgerHolder, parseLedgerRow, ThreadStoreError } from "../thread-store.js";
import { deleteChunks, readChunks, writeChunks, type KvKeyLike, type KvLike } from "./chunks.js";

/** How many times a write that lost a race is tried again. */
export const RETRIES = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface StoredRow {
  token: string;
  claimedAt: number;
  leaseExpiresAt: number;
  /** The lease token of the run that made the claim (absent: a claim made outside a run holding the thread). */
  holder?: string;
  /** Where the settled result's chunks are, once settled. */
  result?: { gen: string; chunks: number };
}

/** Where a thread's ledger lives: call rows, settled results, and the key naming the run that holds the thread. */
export interface KvLedgerKeys {
  rows: KvKeyLike;
  results: KvKeyLike;
  holder: KvKeyLike;
}

/** A thread's ledger: call rows under `rows`, settled results under `results`. */
export class KvLedger implements ExecutionLedger {
  readonly #kv: KvLike;
  readonly #rows: KvKeyLike;
  readonly #results: KvKeyLike;
  readonly #holderKey: KvKeyLike;
  readonly #now: () => number;
  readonly #holder: LedgerHolder | undefined;
  /** The holder key's versionstamp as last read naming this run (see `#holding`). */
  #stamp: string | null | undefined;

  /**
   * @param kv - The KV.
   * @param keys - Where the call rows, the settled results and the thread's holder are.
   * @param now - Clock, epoch ms.
   * @param holder - The run that claims (see {@link LedgerHolder}): its claims hold only while it holds
   *   the thread. Default: none known (claims made outside a run, never refused so).
   */
  constructor(kv: KvLike, keys: KvLedgerKeys, now: () => number, holder?: LedgerHolder) {
    this.#kv = kv;
    this.#rows = keys.rows;
    this.#results = keys.results;
    this.#holderKey = keys.holder;
    this.#now = now;
    this.#holder = holder;
  }

  async claim(key: string, options?: ClaimOptions): Promise<ClaimOutcome> {
    const rowKey = [...this.#rows, key];
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      const entry = await this.#kv.get(rowKey);
      const stored = entry.value === null ? undefined : (entry.value as StoredRow);
      // A settled call's result lives in chunks of its own; read it for the rule (a "run it again" of an
      // abandoned call takes over its marker).
      let settled: LedgerResult | undefined;
      if (stored?.result) {
        settled = await this.#readResult(key, stored.result);
        if (!settled) continue;
        if (!takesOverAbandoned(settled, options)) return { status: "done", result: settled };
      }
      const now = this.#now();
      const parsed = stored && parseLedgerRow(stored);
      const row = parsed && settled ? { ...parsed, result: settled } : parsed;
      const cutOff = row !== undefined && row.leaseExpiresAt > now && this.#heldByTheDead(stored);
      const { outcome, write } = decideClaim(cutOff ? { ...row, leaseExpiresAt: now } : row, now, options);
      // A claim of the run this one took over is written cut off: every later claim reads it `unknown` too.
      const next: StoredRow | undefined = write
        ? this.#own(write)
        : cutOff && stored
          ? { ...stored, leaseExpiresAt: now }
          : undefined;
      if (!next) return outcome;
      let op = this.#kv.atomic().check({ key: rowKey, versionstamp: entry.versionstamp });
      if (this.#holder) {
        const stamp = this.#stamp ?? (await this.#holding(this.#holder.token));
        // The run lost the thread (its hold ran out and another run took it over): it claims nothing more.
        if (stamp === undefined) return { status: "running", leaseExpiresAt: now };
        op = op.check({ key: this.#holderKey, versionstamp: stamp });
      }
      const { ok } = await op.set(rowKey, next).commit();
      if (ok) return outcome;
      // The row, or the thread's holder, changed since read: read both again.
      this.#stamp = undefined;
    }
    throw new ThreadStoreError(`The claim of "${key}" kept losing races.`);
  }

  /**
   * The versionstamp of the thread's holder key while it names `token` (kept: it changes only with the
   * holder, so a run's claims check it without reading it again), or `undefined` when it names another.
   */
  async #holding(token: string): Promise<string | null | undefined> {
    const held = await this.#kv.get(this.#holderKey);
    if (held.value !== token) return undefined;
    this.#stamp = held.versionstamp;
    return held.versionstamp;
  }

  /** Whether the claim was made by the run whose lease this run's took over: that run is gone. */
  #heldByTheDead(stored: StoredRow | undefined): boolean {
    const dead = this.#holder?.tookOver;
    return dead !== undefined && typeof stored?.holder === "string" && stored.holder === dead;
  }

  /** A claim row this ledger writes: the run that holds it named. */
  #own(row: LedgerRow): StoredRow {
    const { token, claimedAt, leaseExpiresAt } = row;
    const holder = this.#holder?.token;
    return holder ? { token, claimedAt, leaseExpiresAt, holder } : { token, claimedAt, leaseExpiresAt };
  }

  async settle(key: string, token: string, result: LedgerResult): Promise<void> {
    const rowKey = [...this.#rows, key];
    const gen = crypto.randomUUID();
    const chunks = await writeChunks(this.#kv, [...this.#results, key, gen], encoder.encode(JSON.stringify(result)));
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      const entry = await this.#kv.get(rowKey);
      const stored = entry.value === null ? undefined : (entry.value as StoredRow);
      // Only the holder records; a repeat by the holder replaces the result (the call was retried).
      if (stored === undefined || stored.token !== token) break;
      const row: StoredRow = { ...stored, result: { gen, chunks } };
      const { ok } = await this.#kv
        .atomic()
        .check({ key: rowKey, versionstamp: entry.versionstamp })
        .set(rowKey, row)
        .commit();
      if (ok) {
        if (stored.result)
          await deleteChunks(this.#kv, [...this.#results, key, stored.result.gen], stored.result.chunks);
        return;
      }
    }
    await deleteChunks(this.#kv, [...this.#results, key, gen], chunks);
  }

  async release(key: string, token: string): Promise<void> {
    const rowKey = [...this.#rows, key];
    const entry = await this.#kv.get(rowKey);
    const stored = entry.value === null ? undefined : (entry.value as StoredRow);
    if (stored?.result || !releasable(stored && parseLedgerRow(stored), token)) return;
    await this.#kv.atomic().check({ key: rowKey, versionstamp: entry.versionstamp }).delete(rowKey).commit();
  }

  async #readResult(key: string, at: { gen: string; chunks: number }): Promise<LedgerResult | undefined> {
    const bytes = await readChunks(this.#kv, [...this.#results, key, at.gen], at.chunks);
    return bytes === undefined ? undefined : (JSON.parse(decoder.decode(bytes)) as LedgerResult);
  }
}
