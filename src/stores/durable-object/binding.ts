/**
 * What passes between a Worker and a thread's Durable Object: the structural types of the
 * binding (no Workers types needed), the path of a hosted run, and the store operations.
 *
 * @module
 */
import type { ClaimOptions, LedgerResult } from "../../agent/ledger/ledger.js";
import type { JsonValue } from "../../agent/messages/messages.js";
import type { LedgerHolder, ThreadData } from "../thread-store.js";
import type { SqlStorageLike } from "./sql.js";

/** The part of a Durable Object's `ctx` (`DurableObjectState`) this store uses. */
export interface DurableObjectStateLike {
  storage: {
    sql: SqlStorageLike;
    /** Present on Workers; a hosting object arms an alarm that notices a run that died with it. */
    setAlarm?(scheduledTime: number): Promise<void>;
  };
}

/** A Durable Object stub: what `namespace.get(id)` returns. */
export interface DurableObjectStubLike {
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
}

/** A Durable Object namespace binding (`env.KABOO_THREAD`). */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): DurableObjectStubLike;
}

/** Path a Worker forwards a run to, inside the thread's object (see `forwardToThread` in `kaboo-workflows/agui`). */
export const HOSTED_RUN_PATH = "/kaboo/run";

/** A store operation a {@link DurableObjectStubLike} is sent (JSON), answered by `KabooThread`. */
export type Op =
  | { op: "load" }
  | { op: "cas"; expected: number; data: ThreadData }
  | { op: "claim"; key: string; options?: ClaimOptions; holder?: LedgerHolder }
  | { op: "settle"; key: string; token: string; result: LedgerResult }
  | { op: "release"; key: string; token: string }
  | { op: "events.append"; runId: string; from: number; events: JsonValue[]; ended: boolean }
  | { op: "events.read"; runId: string; after: number }
  | { op: "events.compact"; before: number };
