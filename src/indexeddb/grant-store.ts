/**
 * Grants kept in IndexedDB (through idb-keyval, in a database of their own), with
 * changes announced to other tabs over a `BroadcastChannel`.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { clear, createStore, del, delMany, entries, get, set } from "idb-keyval";
import type { UseStore } from "idb-keyval";
import { grantId, parseGrant } from "../grants/grant.js";
import type { Grant } from "../grants/grant.js";
import type { AuditLog } from "../agent/audit/audit.js";
import { Listeners, auditRevocations, selectForThread, toGrant } from "../grants/store.js";
import type { GrantsForOptions } from "../grants/store.js";
import type { CorruptGrant, GrantChange, GrantInput, GrantStore, RevokeTarget } from "../grants/store.js";

/** Options of {@link IndexedDbGrantStore}. */
export interface IndexedDbGrantStoreOptions {
  /** Database name. Default `"kaboo-workflows"`. */
  dbName?: string;
  /** Object store name. Default `"grants"`. */
  storeName?: string;
  /**
   * BroadcastChannel name other tabs listen on. Default `"kaboo-workflows:<dbName>/<storeName>"`.
   * `null` turns cross-tab notification off (also off where `BroadcastChannel` is missing).
   */
  channelName?: string | null;
  /** Told about each stored entry that fails validation (it is skipped). Default: `console.warn`. */
  onCorrupt?: (corrupt: CorruptGrant) => void;
  /** A ready idb-keyval store, instead of `createStore(dbName, storeName)` (tests, shared databases). */
  customStore?: UseStore;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * Where revocations are recorded (e.g. the page's `IndexedDbAuditLog`): an entry per principal in
   * the trail `kaboo:grants:<principal>` (`grantsAuditThread`) for each `revoke` / `revokeAll` that
   * took something back, made in this tab. Default: none.
   */
  audit?: AuditLog;
}

// Messages come from other tabs of the same origin, but they are still input:
// validate, and carry ids only — listeners re-read the store, never trust a payload.
const changeMessageSchema = z.object({
  kaboo: z.literal("grants-changed"),
  v: z.literal(1),
  type: z.literal(["grant", "revoke", "clear"]),
  ids: z.array(z.string()).check(z.maxLength(100_000)),
});

function warnCorrupt(corrupt: CorruptGrant): void {
  console.warn(`kaboo-workflows: skipped a corrupt grant (${corrupt.reason})`, corrupt.key);
}

/**
 * A {@link GrantStore} in IndexedDB. Every read validates each entry with zod; a
 * corrupt entry (wrong shape, or stored under a key that is not its id) is skipped
 * and reported through `onCorrupt`, never returned. Every write posts a message on
 * a `BroadcastChannel`, so `subscribe` fires for changes made in other tabs too.
 *
 * idb-keyval's `createStore` makes one object store per database: give each store
 * its own `dbName` (the default database is meant for grants only).
 *
 * @example
 * ```ts
 * const store = new IndexedDbGrantStore();
 * const stop = store.subscribe(async () => render(await store.list()));
 * await store.grant({ tool: "send_money", subjectKey: "acct:42", scope: "always" });
 * const kaboo_grants = await store.grantsFor(threadId);
 * ```
 */
export class IndexedDbGrantStore implements GrantStore {
  readonly #dbName: string;
  readonly #storeName: string;
  readonly #channelName: string | null;
  readonly #onCorrupt: (corrupt: CorruptGrant) => void;
  readonly #now: () => number;
  readonly #audit: AuditLog | undefined;
  readonly #listeners = new Listeners();
  #store: UseStore | undefined;
  #channel: BroadcastChannel | undefined;
  #closed = false;

  /**
   * @param options - `dbName` (default `"kaboo-workflows"`), `storeName` (default `"grants"`),
   *   `channelName` (default `"kaboo-workflows:<dbName>/<storeName>"`, `null` = off),
   *   `onCorrupt` (default `console.warn`), `customStore`, `now` (default `Date.now`), `audit` (default none).
   */
  constructor(options: IndexedDbGrantStoreOptions = {}) {
    this.#dbName = options.dbName ?? "kaboo-workflows";
    this.#storeName = options.storeName ?? "grants";
    this.#channelName =
      options.channelName === undefined ? `kaboo-workflows:${this.#dbName}/${this.#storeName}` : options.channelName;
    this.#onCorrupt = options.onCorrupt ?? warnCorrupt;
    this.#now = options.now ?? Date.now;
    this.#store = options.customStore;
    this.#audit = options.audit;
  }

  // Opened on first use: constructing a store must not touch IndexedDB (SSR, workers without it).
  #db(): UseStore {
    this.#store ??= createStore(this.#dbName, this.#storeName);
    return this.#store;
  }

  #openChannel(): BroadcastChannel | undefined {
    if (this.#channel || this.#closed || this.#channelName === null) return this.#channel;
    if (typeof BroadcastChannel !== "function") return undefined;
    const channel = new BroadcastChannel(this.#channelName);
    channel.onmessage = (event: MessageEvent) => {
      const message = changeMessageSchema.safeParse(event.data);
      if (message.success) {
        this.#listeners.emit({ type: message.data.type, ids: message.data.ids, origin: "remote" });
      }
    };
    this.#channel = channel;
    return channel;
  }

  #announce(type: GrantChange["type"], ids: string[]): void {
    this.#listeners.emit({ type, ids, origin: "local" });
    this.#openChannel()?.postMessage({ kaboo: "grants-changed", v: 1, type, ids });
  }

  #report(corrupt: CorruptGrant): void {
    try {
      this.#onCorrupt(corrupt);
    } catch (error) {
      console.error("kaboo-workflows: onCorrupt threw", error);
    }
  }

  async #read(): Promise<Array<[string, Grant]>> {
    const rows = await entries<IDBValidKey, unknown>(this.#db());
    const valid: Array<[string, Grant]> = [];
    for (const [key, value] of rows) {
      const parsed = parseGrant(value);
      if (!parsed.ok) {
        this.#report({ key, value, reason: parsed.reason });
      } else if (key !== grantId(parsed.grant)) {
        // A valid grant under another key was written by something else than this
        // store (or moved): its key would make revoke miss it, so it is not trusted.
        this.#report({ key, value, reason: "stored under a key that is not its id" });
      } else {
        valid.push([key, parsed.grant]);
      }
    }
    return valid;
  }

  async grant(input: GrantInput): Promise<Grant> {
    const grant = toGrant(input, this.#now());
    const id = grantId(grant);
    await set(id, grant, this.#db());
    this.#announce("grant", [id]);
    return { ...grant };
  }

  async list(): Promise<Grant[]> {
    return (await this.#read()).map(([, grant]) => grant);
  }

  async grantsFor(threadId: string, options: GrantsForOptions = {}): Promise<Grant[]> {
    return selectForThread(await this.list(), threadId, options.now ?? this.#now(), options.principal);
  }

  async revoke(target: RevokeTarget): Promise<number> {
    let revoked: Grant[];
    if (typeof target === "function") {
      const rows = (await this.#read()).filter(([, grant]) => target(grant));
      revoked = rows.map(([, grant]) => grant);
      if (rows.length)
        await delMany(
          rows.map(([id]) => id),
          this.#db(),
        );
    } else {
      const id = typeof target === "string" ? target : grantId(target);
      const parsed = parseGrant(await get(id, this.#db()));
      revoked = parsed.ok && grantId(parsed.grant) === id ? [parsed.grant] : [];
      // Deleted even when nothing valid sits there: that removes a corrupt entry under the id too.
      await del(id, this.#db());
    }
    const ids = revoked.map(grantId);
    if (ids.length) this.#announce("revoke", ids);
    await auditRevocations(this.#audit, revoked);
    return ids.length;
  }

  async revokeAll(): Promise<void> {
    // Read first only when the revocations are recorded: what was there is the record.
    const revoked = this.#audit ? (await this.#read()).map(([, grant]) => grant) : [];
    await clear(this.#db());
    this.#announce("clear", []);
    await auditRevocations(this.#audit, revoked);
  }

  subscribe(listener: (change: GrantChange) => void): () => void {
    this.#openChannel();
    return this.#listeners.add(listener);
  }

  /** Close the channel: no more messages to or from other tabs (the store can still be read and written). */
  close(): void {
    this.#closed = true;
    this.#channel?.close();
    this.#channel = undefined;
  }
}
