/**
 * The events of one edge run: through the thread store when there is one, with the grants the
 * run's answers created handed out before RUN_FINISHED.
 *
 * @module
 */
import { EventType, type AGUIEvent, type RunAgentInput } from "@ag-ui/core";
import type { Agent } from "../../../agent/agent.js";
import type { InvocationState } from "../../../agent/events.js";
import { runContext } from "../../../agent/run-context.js";
import type { Logger } from "../../../logger.js";
import type { ExecutionLedger } from "../../../agent/ledger/ledger.js";
import { SESSION_STATE_KEY } from "../../../agent/interrupts/session.js";
import { runAgui } from "../../core/run.js";
import { runError, runStarted } from "../../run-events.js";
import { spendAnswers } from "../trust/spend-answers.js";
import { handOutGrants, type EdgeGrantOptions } from "../trust/grants.js";
import type { HandlerSettings } from "../options.js";
import type { RunHub } from "./run-hub.js";
import type { SafeStop } from "./safe-stop.js";
import { storedRun } from "./stored-run.js";
import { approverRefusal } from "../../../hooks/approval/approver-check.js";
import { hostedRun } from "../../../stores/hosted-request.js";
import type { LedgerHolder } from "../../../stores/thread-store.js";
import { answersOf } from "../../core/spent-answers.js";

/** What one run of the handler needs. */
export interface EdgeRun {
  agent: Agent;
  input: RunAgentInput;
  signal: AbortSignal;
  /** The run's Stop (with a store, a cancel request finds it). */
  stop: SafeStop;
  /** The run's events for watchers (with a store, a client that reattaches finds it). */
  hub: RunHub;
  request: Request;
  options: HandlerSettings;
  grants: EdgeGrantOptions;
  log: Logger;
  /** Called when the run's events end, however they end. */
  release: () => void;
  /** Told, before the first event, that the sender approves another person's request (with a store). */
  onApprover?: () => void;
  /** Told once the run has read its thread and decided (with a store; see `storedRun`). */
  decided?: (() => void) | undefined;
}

/**
 * A stateless run over a shared ledger: the resume's answers are recorded first, so a replay of the
 * same sealed pause with another answer is refused before anything runs.
 */
async function* spendAnswersFirst(
  input: RunAgentInput,
  ledger: ExecutionLedger,
  run: (input: RunAgentInput) => AsyncGenerator<AGUIEvent>,
): AsyncGenerator<AGUIEvent> {
  const resume = answersOf(input);
  if (resume.length) {
    const state = input.state as Record<string, unknown> | undefined;
    const refusal = await spendAnswers(ledger, input.threadId, state?.[SESSION_STATE_KEY], resume);
    if (refusal) {
      yield runStarted(input);
      yield runError(refusal);
      return;
    }
  }
  yield* run(input);
}

/** The run's events (through the store when there is one), with new grants handed out before RUN_FINISHED. */
export async function* edgeRun({
  agent,
  input,
  signal,
  stop,
  hub,
  request,
  options,
  grants,
  log,
  release,
  onApprover,
  decided,
}: EdgeRun): AsyncGenerator<AGUIEvent> {
  let invocationState: InvocationState | undefined;
  const prepare = async (state: InvocationState, holder?: LedgerHolder) => {
    invocationState = state;
    if (grants.principal !== undefined) runContext.principal.set(state, grants.principal);
    // With a store every call is claimed in the thread's own ledger, shared by every isolate, as the run's own.
    if (options.store) runContext.executionLedger.set(state, options.store.ledger(input.threadId, holder));
    await options.prepare?.(state, request);
  };
  const { store } = options;
  const ledger = typeof options.ledger === "function" ? options.ledger(input.threadId) : options.ledger;
  const run = (runInput: RunAgentInput, o?: { requester?: string; holder?: LedgerHolder }) => {
    const requester = o?.requester;
    const holder = o?.holder;
    const prepared = async (state: InvocationState) => {
      if (requester !== undefined) runContext.requester.set(state, requester);
      await prepare(state, holder);
    };
    // The input is the handler's own parse of the body: the run uses its state and props in place.
    const owned = { ownsInput: true };
    return runAgui({
      agent,
      input: runInput,
      signal,
      prepare: prepared,
      ledger,
      audit: options.audit,
      logger: log,
      ...owned,
    });
  };
  const events = store
    ? storedRun({
        store,
        input,
        principal: grants.principal,
        log,
        leaseMs: options.runLeaseMs,
        eventLogRetentionMs: options.eventLogRetentionMs,
        run,
        stop,
        hub,
        mayAnswer: (principal, question) => approverRefusal(agent, principal, question),
        onApprover,
        decided,
        hosted: hostedRun(request),
      })
    : ledger
      ? spendAnswersFirst(input, ledger, run)
      : run(input);
  try {
    for await (const event of events) {
      if (event.type === EventType.RUN_FINISHED && invocationState)
        yield* handOutGrants(invocationState, input.threadId, grants);
      yield event;
    }
  } finally {
    release();
  }
}
