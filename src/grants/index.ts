/**
 * `kaboo-workflows/grants`: remembered approvals — the grant schema and parser,
 * the gate's lookup, the IndexedDB and memory stores, and HMAC signing.
 *
 * @module
 */
export {
  DEFAULT_MAX_GRANTS,
  GRANT_VERSION,
  GRANT_SCOPES,
  InvalidGrantError,
  grantId,
  grantRefusalSummary,
  grantSchema,
  parseGrant,
  parseGrants,
} from "./grant.js";
export type { Grant, GrantScope, ParseGrantsOptions, ParsedGrants, RejectedGrant } from "./grant.js";
export { GrantIndex, findGrant, findGrants, indexGrants, isExpired } from "./find.js";
export type { GrantQuery } from "./find.js";
export { MemoryGrantStore, grantsAuditThread, selectForThread } from "./store.js";
export type {
  CorruptGrant,
  GrantChange,
  GrantInput,
  GrantKey,
  GrantStore,
  GrantsForOptions,
  MemoryGrantStoreOptions,
  RevokeTarget,
  ServerGrantStore,
} from "./store.js";
export { IndexedDbGrantStore } from "../indexeddb/grant-store.js";
export type { IndexedDbGrantStoreOptions } from "../indexeddb/grant-store.js";
// The page's execution ledger lives in agent/ beside the other ledgers; it is exported from this entry
// (the page's IndexedDB entry), never from the core one, so the core entry does not pull in idb-keyval.
export { IndexedDbExecutionLedger } from "../indexeddb/ledger.js";
export type { IndexedDbExecutionLedgerOptions } from "../indexeddb/ledger.js";
export { IndexedDbAuditLog } from "../indexeddb/audit-log.js";
export type { IndexedDbAuditLogOptions } from "../indexeddb/audit-log.js";
export { acceptGrants } from "./accept.js";
export type { AcceptGrantsOptions } from "./accept.js";
export {
  canonicalGrant,
  checkGrantSignature,
  filterVerified,
  findVerifiedGrant,
  grantRejectionReason,
  hmacText,
  importGrantKey,
  signGrant,
  verifyGrant,
  verifyHmacText,
} from "./signing.js";
export type { GrantRejection, GrantSecret, UnverifiedGrant } from "./signing.js";
