/**
 * Four-eyes approvals: a gate rule may need approvals from several people before its call runs.
 *
 * Each approval round is its own interrupt (`<name>`, then `<name>:quorum:1`, `:quorum:2`, …), and
 * each round's request carries who approved so far (`approvals.approvedBy`), written when the
 * previous round's answer was read, under that run's principal. So the partial approvals are part
 * of the paused session, which lives in the thread store at the edge (or sealed, or in the page's
 * session store) and survives restarts; a client's copy decides nothing.
 *
 * @module
 */
import type { InterruptState } from "../../agent/interrupts/interrupt.js";

/** A rule's approval quorum. */
export interface ApprovalQuorum {
  /** How many distinct people must approve (at least 1). */
  required: number;
  /** Who may approve. Default: anyone with a principal. */
  eligible?: (principal: string) => boolean;
  /** The person whose run asked may not approve it (separation of duties). Default `false`. */
  forbidRequester?: boolean;
}

/** One counted approval. */
export interface QuorumApproval {
  principal: string;
  /** Epoch ms. */
  at: number;
}

/** The quorum part of an approval request (JSON), shown to every approver (AG-UI `metadata.kaboo.approvals`). */
export interface QuorumState {
  required: number;
  approvedBy: QuorumApproval[];
  /** Whose run asked, when known. */
  requestedBy: string | null;
}

/** The interrupt name of round `round` of a question asked under `name`. */
export function quorumRoundName(name: string, round: number): string {
  return round === 0 ? name : `${name}:quorum:${round}`;
}

/** The latest round of a quorum question in the interrupt state. */
export interface LatestRound {
  round: number;
  name: string;
  /** Its stored interrupt, if the round was asked. */
  stored: { reason?: unknown; response?: unknown } | undefined;
  /** The quorum as the latest asked round shows it (`undefined` before the first is asked). */
  state: QuorumState | undefined;
  /** The first round's deadline: it holds for the whole request. */
  expiresAt: string | undefined;
}

/**
 * Finds the latest asked round of a question (bounded by `required`: every round but the last
 * counted or refused one answer, and a round never repeats).
 * @param interrupts - The agent's interrupt state.
 * @param toolUseId - The call.
 * @param name - The question's interrupt name (round 0).
 * @param limit - The most rounds to look at.
 * @param idOf - The interrupt id of a tool hook's question (`toolHookInterruptId`).
 * @returns The latest round, or round 0 unasked.
 */
export function latestRound(
  interrupts: InterruptState,
  toolUseId: string,
  name: string,
  limit: number,
  idOf: (toolUseId: string, name: string) => string,
): LatestRound {
  const at = (round: number) => interrupts.interrupts.get(idOf(toolUseId, quorumRoundName(name, round)));
  const first = at(0);
  let round = 0;
  while (round + 1 < limit && at(round + 1) !== undefined) round++;
  const stored = at(round);
  const expiresAt = (first?.reason as { expiresAt?: unknown } | undefined)?.expiresAt;
  return {
    round,
    name: quorumRoundName(name, round),
    stored,
    state: readQuorum(stored?.reason),
    expiresAt: typeof expiresAt === "string" ? expiresAt : undefined,
  };
}

/**
 * The quorum part of an asked question, read leniently.
 * @param reason - A stored question's reason.
 * @returns Who approved so far, or `undefined` when the reason holds no quorum.
 */
export function readQuorum(reason: unknown): QuorumState | undefined {
  const q = (reason as { approvals?: unknown } | undefined)?.approvals as Partial<QuorumState> | undefined;
  if (!q || typeof q !== "object" || !Number.isInteger(q.required) || !Array.isArray(q.approvedBy)) return undefined;
  const approvedBy = q.approvedBy.filter(
    (a): a is QuorumApproval => typeof a?.principal === "string" && typeof a.at === "number",
  );
  return {
    required: q.required as number,
    approvedBy,
    requestedBy: typeof q.requestedBy === "string" ? q.requestedBy : null,
  };
}

/** What one answer does to a quorum. */
export type QuorumStep =
  /** Counted, and the quorum is met: run the call. */
  | { kind: "met"; state: QuorumState }
  /** Counted, more are needed: ask the next round with `state`. */
  | { kind: "more"; state: QuorumState }
  /** Not counted (`note` says why): ask again with the state unchanged. */
  | { kind: "ignored"; state: QuorumState; note: string }
  /** An eligible person said no (or the request expired): the call does not run. */
  | { kind: "refused" };

/**
 * Judges one answer against the quorum.
 * @param quorum - The rule's option.
 * @param state - Who approved so far.
 * @param answer - The decision read, who gave it (`null`: unknown), whether it edits the arguments.
 * @param now - Epoch ms.
 * @returns The step to take.
 */
export function judgeAnswer(
  quorum: ApprovalQuorum,
  state: QuorumState,
  answer: { decision: string; principal: string | null; edits: boolean },
  now: number,
): QuorumStep {
  const { principal } = answer;
  if (answer.decision === "expired") return { kind: "refused" };
  // The person who asked may always withdraw the request.
  if (answer.decision !== "approved" && principal !== null && principal === state.requestedBy)
    return { kind: "refused" };
  const why = ineligible(quorum, state, principal);
  if (why !== undefined) return { kind: "ignored", state, note: why };
  if (answer.decision !== "approved") return { kind: "refused" };
  if (answer.edits)
    return { kind: "ignored", state, note: "an approval under a multi-person rule cannot edit the call" };
  const next: QuorumState = {
    ...state,
    approvedBy: [...state.approvedBy, { principal: principal as string, at: now }],
  };
  return next.approvedBy.length >= quorum.required ? { kind: "met", state: next } : { kind: "more", state: next };
}

/**
 * Why a person's approval would not count (they already approved, they asked under
 * `forbidRequester`, `eligible` says no), or `undefined` when it would.
 * @param quorum - The rule's option.
 * @param state - Who approved so far.
 * @param principal - Who answers (`null`: unknown).
 */
export function ineligible(quorum: ApprovalQuorum, state: QuorumState, principal: string | null): string | undefined {
  if (principal === null) return "the answer names no person";
  if (state.approvedBy.some((a) => a.principal === principal)) return `${principal} has already approved`;
  if (quorum.forbidRequester === true && principal === state.requestedBy) return `${principal} asked for this call`;
  let ok = true;
  try {
    ok = quorum.eligible?.(principal) ?? true;
  } catch {
    ok = false;
  }
  return ok === true ? undefined : `${principal} may not approve this call`;
}
