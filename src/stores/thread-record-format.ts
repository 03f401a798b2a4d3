/**
 * The stored format of a thread record and of a ledger row: versioned JSON written and read back,
 * validated, here and nowhere else. A store keeps the text; this module says what it means.
 *
 * @module
 */
import * as z from "zod/v4/mini";
import { jsonValueSchema } from "../agent/interrupts/interrupt.js";
import { looseObject, recordOf } from "../agent/shared/lean-schemas.js";
import type { LedgerRow } from "../agent/ledger/claim-rule.js";
import { KabooError } from "../errors.js";
import type { ThreadData, ThreadRecord } from "./thread-store.js";

/**
 * Version of the stored {@link ThreadRecord} format.
 *
 * - 1: `{ format, version, owner, session, messages, state, answered, lease, updatedAt }`; `lease.cancel`
 *   (optional, absent = false) and `lease.attempt` (optional, absent = 0) were added later without a new
 *   version: older readers drop them (a run again then numbers its attempt from its log alone).
 */
export const THREAD_RECORD_FORMAT = 1;

/** A stored thread record failed validation (corrupt storage, or another format). */
export class InvalidThreadRecordError extends KabooError {
  readonly code = "INVALID_THREAD_RECORD" as const;
}

const json = jsonValueSchema;
const jsonObject = recordOf(json);

const recordSchema = z.object({
  format: z.literal(THREAD_RECORD_FORMAT),
  version: z.int().check(z.nonnegative()),
  owner: z.nullable(z.string()),
  session: z.nullable(jsonObject),
  messages: z.array(json),
  state: jsonObject,
  answered: recordOf(z.object({ runId: z.string(), outcome: jsonObject, at: z.number(), by: z.optional(z.string()) })),
  lease: z.nullable(
    z.object({
      token: z.string(),
      runId: z.string(),
      resume: z.boolean(),
      expiresAt: z.number(),
      cancel: z.optional(z.boolean()),
      attempt: z.optional(z.int().check(z.gte(1))),
    }),
  ),
  updatedAt: z.number(),
});

/**
 * An empty thread (version 0).
 *
 * @returns A record nothing was written to.
 */
export function emptyThread(): ThreadRecord {
  return { version: 0, owner: null, session: null, messages: [], state: {}, answered: {}, lease: null, updatedAt: 0 };
}

/**
 * The stored text of a record: versioned JSON.
 *
 * @param version - The version it is stored as.
 * @param data - The thread's data.
 * @returns JSON text.
 */
export function encodeThread(version: number, data: ThreadData): string {
  const { owner, session, messages, state, answered, lease, updatedAt } = data;
  return JSON.stringify({
    format: THREAD_RECORD_FORMAT,
    version,
    owner,
    session,
    messages,
    state,
    answered,
    lease,
    updatedAt,
  });
}

/**
 * Reads a stored record back, validated.
 *
 * @param text - What {@link encodeThread} wrote.
 * @returns The record.
 * @throws {InvalidThreadRecordError} When it is not a record of this format.
 */
export function decodeThread(text: string): ThreadRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new InvalidThreadRecordError("A stored thread record is not JSON.", { cause });
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success)
    throw new InvalidThreadRecordError(`A stored thread record is malformed: ${z.prettifyError(parsed.error)}`);
  const { format: _format, ...record } = parsed.data;
  return record as ThreadRecord;
}

const rowSchema = z.object({
  token: z.string(),
  claimedAt: z.number(),
  leaseExpiresAt: z.number(),
  result: z.optional(
    z.object({
      status: z.literal(["success", "error"]),
      content: z.array(looseObject({ type: z.string() })),
      structuredContent: z.optional(json),
    }),
  ),
});

/**
 * Reads a stored ledger row back, validated; a corrupt row counts as an unknown claim (never as
 * "not run": that would run the call again).
 *
 * @param value - The stored value (parsed JSON).
 * @returns The row.
 */
export function parseLedgerRow(value: unknown): LedgerRow {
  const parsed = rowSchema.safeParse(value);
  if (parsed.success) return parsed.data as LedgerRow;
  return { token: "", claimedAt: 0, leaseExpiresAt: 0 };
}
