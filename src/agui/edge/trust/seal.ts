/**
 * Sealed sessions, for an edge handler without a thread store: the paused session travels in the
 * client's AG-UI state, so the handler signs what it sends (HMAC-SHA256 under its secret, over the
 * whole `kaboo_session` and the thread id) and refuses any session it did not send for that thread.
 *
 * A seal proves origin, not freshness: the latest sealed snapshot of a thread can be sent again.
 * Exactly once across replays needs a thread store.
 *
 * @module
 */
import { EventType, type AGUIEvent, type RunAgentInput, type StateSnapshotEvent } from "@ag-ui/core";
import type { JsonObject } from "../../../agent/messages/messages.js";
import { canonicalJson } from "../../../agent/shared/canonical-json.js";
import { hmacText, verifyHmacText, type GrantSecret } from "../../../grants/signing.js";
import { HistoryConflictError, InvalidSessionError } from "../errors.js";
import { claimsHistory, continueSealed, transcriptDigests } from "./sealed-history.js";
import { SESSION_STATE_KEY, sessionPausedCallIds } from "../../../agent/interrupts/session.js";
import { isObject } from "../../../agent/shared/guards.js";
import { isResume } from "../../core/spent-answers.js";

/**
 * Version of the seal.
 *
 * - 1: `seal: "v1.<base64url HMAC-SHA256>"` over `kaboo-session v1\n<JSON thread id>\n<canonical JSON
 *   of the session without its seal>`; with a principal, `principal <JSON principal>\n` comes before the JSON.
 *   The session carries `transcript`, the digest of the transcript it was sent with (added without a new
 *   version: a session sealed before has none, and vouches for no history: a turn holding a message the
 *   server wrote is refused with it). A run that ended without a pause sends a session holding only it.
 */
export const SEAL_VERSION = 1;

/** Key of the seal inside `kaboo_session`. */
export const SEAL_KEY = "seal";

const PREFIX = `v${SEAL_VERSION}.`;

function sealedText(session: JsonObject, threadId: string, principal: string | undefined): string {
  const { [SEAL_KEY]: _seal, ...rest } = session;
  // With a principal the session is that person's too: another person cannot answer its questions.
  const owner = principal === undefined ? "" : `principal ${JSON.stringify(principal)}\n`;
  return `kaboo-session v${SEAL_VERSION}\n${JSON.stringify(threadId)}\n${owner}${canonicalJson(rest)}`;
}

/**
 * Seals a session for one thread.
 *
 * @param session - The outgoing `kaboo_session` (any old seal is replaced).
 * @param threadId - The thread it belongs to.
 * @param secret - The handler's secret.
 * @param principal - The person the session is for (the handler's `principal`). Default: none.
 * @returns A copy with `seal`.
 */
export async function sealSession(
  session: JsonObject,
  threadId: string,
  secret: GrantSecret,
  principal?: string,
): Promise<JsonObject> {
  return { ...session, [SEAL_KEY]: PREFIX + (await hmacText(sealedText(session, threadId, principal), secret)) };
}

/**
 * Opens a sealed session: checks that this handler sealed exactly this session for this thread.
 *
 * @param value - The incoming `kaboo_session` (untrusted).
 * @param threadId - The run's thread.
 * @param secret - The handler's secret.
 * @param principal - The person the run serves. Default: none.
 * @returns `{ session }` without its seal, or `{ reason }` when it is unsealed, altered, sealed for
 *   another thread or person, or with another secret.
 */
export async function openSession(
  value: unknown,
  threadId: string,
  secret: GrantSecret,
  principal?: string,
): Promise<{ session: JsonObject } | { reason: string }> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { reason: "the session is not an object" };
  const session = value as JsonObject;
  const seal = session[SEAL_KEY];
  if (typeof seal !== "string") return { reason: "the session is not sealed" };
  if (!seal.startsWith(PREFIX)) return { reason: "the seal has an unsupported version" };
  let text: string;
  try {
    text = sealedText(session, threadId, principal);
  } catch {
    return { reason: "the session cannot be read" };
  }
  if (!(await verifyHmacText(text, seal.slice(PREFIX.length), secret))) {
    return { reason: "the seal does not match (altered, for another thread or person, or sealed with another secret)" };
  }
  const { [SEAL_KEY]: _seal, ...rest } = session;
  return { session: rest };
}

/**
 * The state a run may use. With a thread store the client's `kaboo_session` is dropped (the store
 * decides); without one, under a secret, it must be a session this handler sealed for this thread
 * (it is passed on unsealed).
 *
 * @param input - The run's input. Its `state` is changed in place (the handler's own parse of the
 *   body: a copy of a wide state is a cost a client could buy).
 * @param o - `store`: whether a thread store decides; `secret`: the handler's secret; `principal`: the run's person.
 * @returns The state (`input.state` itself when it is an object), or the refusal.
 */
export async function openIncomingState(
  input: RunAgentInput,
  o: { store: boolean; secret: GrantSecret | undefined; principal?: string | undefined },
): Promise<Record<string, unknown> | InvalidSessionError | HistoryConflictError> {
  const state: Record<string, unknown> = isObject(input.state) ? input.state : {};
  const session = state[SESSION_STATE_KEY];
  if (o.store) {
    delete state[SESSION_STATE_KEY];
    return state;
  }
  if (o.secret === undefined) return state;
  // Every turn that claims history (a message the server wrote) must bring a seal of it: each run of
  // a stateless handler ends with one, paused or not, so only a first turn comes without.
  const claimed = claimsHistory(input.messages);
  if (session === undefined || session === null) return claimed ? unsealedHistory() : state;
  const opened = await openSession(session, input.threadId, o.secret, o.principal);
  if ("reason" in opened) return new InvalidSessionError(`The session was refused: ${opened.reason}.`);
  // The seal covers the transcript's digest too: the history a client sends must continue it.
  const { [TRANSCRIPT_KEY]: transcript, ...rest } = opened.session;
  if (typeof transcript !== "string") {
    if (claimed) return unsealedHistory();
  } else {
    try {
      continueSealed(transcript, sessionPausedCallIds(rest), input.messages, isResume(input));
    } catch (error) {
      if (error instanceof HistoryConflictError) return error;
      throw error;
    }
  }
  // A run that ended without a pause sealed a session holding the digest only: nothing to restore.
  if (Object.keys(rest).length > 0) state[SESSION_STATE_KEY] = rest;
  else delete state[SESSION_STATE_KEY];
  return state;
}

function unsealedHistory(): HistoryConflictError {
  return new HistoryConflictError(
    "The turn's messages hold history this handler wrote, but the state carries no seal of it (kaboo_session): " +
      "send back the state of the last run as received.",
  );
}

/** Key of the transcript digest inside a sealed `kaboo_session`. */
export const TRANSCRIPT_KEY = "transcript";

/**
 * Seals the `kaboo_session` of every outgoing state snapshot. With `everyTurn` (a stateless
 * handler) a closing snapshot without a paused session gets one holding the transcript's digest
 * only, so the next turn's history is checked after any run, not only after a pause.
 *
 * @param events - The run's events.
 * @param threadId - The run's thread.
 * @param secret - The handler's secret; none: events pass unchanged.
 * @param o - `principal`: the person the run serves (default none); `everyTurn` (default false);
 *   `inPlace`: seal the snapshot object itself instead of a copy, for a caller whose snapshots are
 *   made for the client alone (a stateless run; a stored run keeps its snapshot for the store): a
 *   copy of a wide state is a cost a client could buy (default false).
 * @returns The events.
 */
export async function* sealOutgoing(
  events: AsyncIterable<AGUIEvent>,
  threadId: string,
  secret: GrantSecret | undefined,
  o: { principal?: string | undefined; everyTurn?: boolean; inPlace?: boolean } = {},
): AsyncGenerator<AGUIEvent> {
  // A state snapshot with a session waits for the messages snapshot that follows it (the run sends
  // them together): the seal covers the digest of the transcript the client will send back.
  let held: StateSnapshotEvent | undefined;
  const seal = async (state: StateSnapshotEvent, messages: readonly unknown[] | undefined) => {
    const snapshot = state.snapshot as Record<string, unknown>;
    const open = snapshot[SESSION_STATE_KEY];
    // A snapshot that closes no run (no messages follow) and holds no session passes as it came.
    if (!isObject(open) && !messages) return state;
    const session: JsonObject = isObject(open) ? { ...(open as JsonObject) } : {};
    if (messages) session[TRANSCRIPT_KEY] = transcriptDigests(messages).at(-1) ?? "";
    const sealed = await sealSession(session, threadId, secret as GrantSecret, o.principal);
    if (o.inPlace) {
      snapshot[SESSION_STATE_KEY] = sealed;
      return state;
    }
    return { ...state, snapshot: { ...snapshot, [SESSION_STATE_KEY]: sealed } } satisfies StateSnapshotEvent;
  };
  for await (const event of events) {
    if (held) {
      yield await seal(held, event.type === EventType.MESSAGES_SNAPSHOT ? event.messages : undefined);
      held = undefined;
    }
    const snapshot: unknown = event.type === EventType.STATE_SNAPSHOT ? event.snapshot : undefined;
    const session = isObject(snapshot) ? snapshot[SESSION_STATE_KEY] : undefined;
    const sealable = isObject(session) || o.everyTurn === true;
    if (event.type !== EventType.STATE_SNAPSHOT || secret === undefined || !isObject(snapshot) || !sealable) {
      yield event;
      continue;
    }
    held = event;
  }
  if (held) yield await seal(held, undefined);
}
