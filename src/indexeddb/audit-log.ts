/**
 * The audit trail of a page: IndexedDB, shared by every tab of the origin. Each entry is stored
 * under `[threadId, seq]` with `add`, which fails when the key exists, so of two tabs appending
 * at once exactly one takes each sequence number.
 *
 * @module
 */
import { createStore, type UseStore } from "idb-keyval";
import { ChainedAuditLog, type AuditChainStorage, type AuditEntry } from "../agent/audit/audit.js";

/** Options of {@link IndexedDbAuditLog}. */
export interface IndexedDbAuditLogOptions {
  /** Database name. Default `"kaboo-workflows-audit"` (idb-keyval keeps one object store per database). */
  dbName?: string;
  /** Object store name. Default `"entries"`. */
  storeName?: string;
  /** A ready idb-keyval store instead of `createStore(dbName, storeName)`. */
  customStore?: UseStore;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/**
 * An {@link index!AuditLog | AuditLog} in IndexedDB: survives reloads and is shared by every tab of the origin.
 * What another tab (or a person with devtools) wrote is read back as is; `verifyAuditTrail` says
 * whether it still holds.
 *
 * @example
 * ```ts
 * const audit = new IndexedDbAuditLog();
 * const agent = new Agent({ model, tools, hooks: [gate], audit });
 * const lines = auditToJsonLines(await audit.entries(threadId));
 * ```
 */
export class IndexedDbAuditLog extends ChainedAuditLog {
  /** @param options - `dbName` (default `"kaboo-workflows-audit"`), `storeName` (default `"entries"`), `customStore`, `now`. */
  constructor(options: IndexedDbAuditLogOptions = {}) {
    const store =
      options.customStore ?? createStore(options.dbName ?? "kaboo-workflows-audit", options.storeName ?? "entries");
    super(idbStorage(store), options.now);
  }
}

const range = (threadId: string) => IDBKeyRange.bound([threadId, 0], [threadId, Number.MAX_SAFE_INTEGER]);

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function idbStorage(store: UseStore): AuditChainStorage {
  return {
    last: (threadId) =>
      store("readonly", async (s) => {
        const cursor = await request(s.openCursor(range(threadId), "prev"));
        return (cursor?.value ?? undefined) as AuditEntry | undefined;
      }),
    insert: (entry) =>
      store("readwrite", (s) => {
        return new Promise<boolean>((resolve, reject) => {
          const req = s.add(entry, [entry.threadId, entry.seq]);
          req.onsuccess = () => resolve(true);
          req.onerror = (event) => {
            // The number is taken (another tab won): not an error of the transaction.
            if (req.error?.name === "ConstraintError") {
              event.preventDefault();
              resolve(false);
            } else reject(req.error);
          };
        });
      }),
    list: (threadId) => store("readonly", (s) => request(s.getAll(range(threadId)))),
  };
}
