/**
 * One AG-UI run of a runner agent, as an async stream of AG-UI events. Shared by
 * the in-page {@link KabooAgent} and the edge handler.
 *
 * @module
 */
import type { AGUIEvent, RunAgentInput, RunFinishedOutcome, JsonPatchOperation } from "@ag-ui/core";
import type { Agent } from "../../agent/agent.js";
import type { InvocationState } from "../../agent/events.js";
import type { Message } from "../../agent/messages/messages.js";
import type { AgentResult } from "../../agent/result.js";
import { InvalidStateError, ToolBatchError } from "../../errors.js";
import type { GrantStore } from "../../grants/store.js";
import type { ExecutionLedger } from "../../agent/ledger/ledger.js";
import type { AuditLog } from "../../agent/audit/audit.js";
import type { WatchedAudit } from "../audit-events.js";
import { pausedBatchMessages } from "../../agent/interrupts/paused-batch.js";
import { runContext } from "../../agent/run-context.js";
import { SESSION_STATE_KEY } from "../../agent/interrupts/session.js";
import { defaultLogger, type Logger } from "../../logger.js";
import { sessionStateSnapshot } from "../../hooks/session-state-hook.js";
import { stateDeltas } from "../../hooks/state-effects.js";
import { runCheckpoints, type CheckpointTracker, type RunCheckpoint } from "./checkpoint.js";
import type { ClientToolHandler } from "../client-tools.js";
import { AguiEventMapper } from "../events.js";
import { CLIENT_TOOL_INTERRUPT, toAguiInterrupt, toInterruptResponses } from "../interrupts.js";
import { fromAguiMessages, toAguiMessages } from "../messages.js";
import { saveNewGrants } from "./new-grants.js";
import { messagesSnapshot, runError, runFinished, runStarted, stateDelta, stateSnapshot } from "../run-events.js";
import { contextOf, prepareAgent } from "./run-setup.js";
import { answersOf, isResume, spentBySnapshot } from "./spent-answers.js";

export { SESSION_STATE_KEY } from "../../agent/interrupts/session.js";

/** Options of {@link runAgui}. */
export interface AguiRunOptions {
  /** The runner agent serving this thread (warm in a page, fresh per request at the edge). */
  agent: Agent;
  /** The validated run input. */
  input: RunAgentInput;
  /**
   * Remembered grants: sent as `forwardedProps.kaboo_grants`; `thread`/`always` answers are recorded
   * (one that cannot be saved is logged and reported as a CUSTOM `kaboo_grant_not_saved` event).
   */
  grantStore?: GrantStore | undefined;
  /**
   * The person the run serves, as the host vouches (a page's signed-in person): the gates see it
   * (four-eyes approvals count each answer under it), and the grants of `grantStore` are read and
   * recorded for that person only. Default: none (grants that name no person).
   */
  principal?: string | undefined;
  /** Handlers for browser tools the page runs itself. */
  clientToolHandlers?: Readonly<Record<string, ClientToolHandler>> | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The execution ledger of this thread's calls: each call is claimed before it runs, so a resume
   * delivered twice, an older snapshot replayed or a second tab gets the recorded result instead of
   * a second run. Default: the runner agent's own (memory). `KabooAgent` passes an IndexedDB one;
   * at the edge, pass the thread store's.
   */
  ledger?: ExecutionLedger | undefined;
  /**
   * The audit trail of this thread: the gates and the runner record in it, and each entry is also
   * sent as a CUSTOM `kaboo_audit` event. Default: the runner agent's own, if any (not sent).
   */
  audit?: AuditLog | undefined;
  /** Extra per-run setup of `invocationState` (state effects, history exchange, …). */
  prepare?: ((invocationState: InvocationState) => void | Promise<void>) | undefined;
  /** Makes message ids. Default `crypto.randomUUID`. */
  newId?: (() => string) | undefined;
  /**
   * The caller hands `input.state` and `input.forwardedProps` over to the run: they are used and
   * changed in place, never copied (the edge handler's own parse of the body). Default `false`
   * (both are copied, so the caller's objects stay as they were).
   */
  ownsInput?: boolean | undefined;
  /** Where session restore problems are reported. Default: the console. */
  logger?: Logger | undefined;
  /** Goes on with the run a {@link RunCheckpoint} holds (`input.messages` and `input.state`). Default `false`. */
  continueRun?: boolean | undefined;
  /** Told the run as it stands after each step (see {@link RunCheckpoint}); a page saves it. */
  onCheckpoint?: ((checkpoint: RunCheckpoint) => Promise<void>) | undefined;
}

/**
 * Runs the agent for one AG-UI run and yields AG-UI 1.0 events: RUN_STARTED, the streamed
 * text/reasoning/tool events, STATE_SNAPSHOT, MESSAGES_SNAPSHOT and RUN_FINISHED with its
 * outcome — or RUN_ERROR with a code (`UNKNOWN_INTERRUPT_ID`, `PARTIAL_RESUME`,
 * `INVALID_PAYLOAD`, `PENDING_INTERRUPTS`, …) when the run cannot proceed.
 */
export async function* runAgui(o: AguiRunOptions): AsyncGenerator<AGUIEvent> {
  const { agent, input } = o;
  const newId = o.newId ?? (() => crypto.randomUUID());
  yield runStarted(input);
  const mapper = new AguiEventMapper(newId, (name) => agent.tool(name)?.kind);
  const baseSystemPrompt = agent.systemPrompt;
  let started: StartedRun | undefined;
  let watched: WatchedAudit | undefined;
  try {
    const { invocationState, state, audit } = await contextOf(o);
    watched = audit;
    if (isResume(input) && spentBySnapshot(state[SESSION_STATE_KEY], input.messages ?? [])) {
      // Spent: those calls already ran. Nothing is restored or run; the conversation stands as sent.
      const converted = fromAguiMessages(input.messages ?? []);
      yield messagesSnapshot(toAguiMessages(converted.messages, newId, converted.toolMessageIds));
      yield runFinished(input, { type: "success" });
      return;
    }
    const toolMessageIds = await prepareAgent(o, invocationState, state, baseSystemPrompt);
    started = { invocationState, toolMessageIds };
    const tracker =
      o.onCheckpoint &&
      runCheckpoints({
        ...o,
        save: o.onCheckpoint,
        invocationState,
        sessionKey: SESSION_STATE_KEY,
        newId,
        responseId: () => mapper.responseId,
        toolMessageIds,
      });
    const result = yield* streamRun(o, invocationState, mapper, audit, tracker);
    yield* audit.drain();
    // After the calls ran: a grant that cannot be saved is reported, never a failure of this run.
    if (o.grantStore) {
      const log = o.logger ?? defaultLogger;
      const { principal } = o;
      yield* saveNewGrants({ invocationState, threadId: input.threadId, principal, grantStore: o.grantStore, log });
    }
    yield* finish(o, invocationState, result, { mapper, newId, toolMessageIds });
  } catch (error) {
    yield* failedRun(o, error, { mapper, newId, started, watched });
  } finally {
    agent.systemPrompt = baseSystemPrompt;
  }
}

/** A run as far as it got: its state, and the AG-UI ids of its tool messages. */
interface StartedRun {
  invocationState: InvocationState;
  toolMessageIds: Map<string, string>;
}

/**
 * What a failed run still tells the client before its RUN_ERROR: its open messages closed, the
 * snapshots when what it did must be kept, and what it recorded in the audit trail.
 */
async function* failedRun(
  o: AguiRunOptions,
  error: unknown,
  run: {
    mapper: AguiEventMapper;
    newId: () => string;
    started: StartedRun | undefined;
    watched: WatchedAudit | undefined;
  },
): AsyncGenerator<AGUIEvent> {
  const { agent } = o;
  const { mapper, started } = run;
  yield* mapper.closeAll();
  // A batch that failed part way keeps what finished: the front end gets it before the error.
  // So does a resume whose batch finished before a later step failed: its pause is spent, and a
  // thread store must record that, or a retry with another answer would run the calls again.
  const pauseUsedUp = isResume(o.input) && !agent.interruptState.activated;
  if (started && (error instanceof ToolBatchError || pauseUsedUp)) {
    const transcript = agent.interruptState.activated
      ? [...agent.messages, ...pausedMessages(agent, mapper.responseId)]
      : agent.messages;
    yield* snapshots(o, started.invocationState, transcript, {
      newId: run.newId,
      toolMessageIds: started.toolMessageIds,
    });
  }
  // What the failed run recorded (an answer read before the call was refused, say) still reaches the client.
  if (run.watched) yield* run.watched.drain();
  yield runError(error);
}

/** Runs the agent, yielding its events and state deltas as AG-UI events. @returns The run's result. */
async function* streamRun(
  o: AguiRunOptions,
  invocationState: InvocationState,
  mapper: AguiEventMapper,
  audit: WatchedAudit,
  tracker?: CheckpointTracker,
): AsyncGenerator<AGUIEvent, AgentResult> {
  const resume = answersOf(o.input);
  let result: AgentResult | undefined;
  const stream = o.agent.stream(
    resume.length ? toInterruptResponses(resume) : undefined,
    o.signal ? { invocationState, signal: o.signal } : { invocationState },
  );
  const deltas = stateDeltas(invocationState);
  let sentDeltas = deltas.length;
  for await (const event of stream) {
    yield* audit.drain();
    await tracker?.onEvent(event);
    yield* mapper.map(event);
    // State effects run in AfterToolCall hooks, before the result event is emitted.
    while (sentDeltas < deltas.length) {
      const ops = deltas[sentDeltas++]?.ops ?? [];
      // StateEffectsHook admits only the six RFC 6902 ops; fast-json-patch's type also names its internal `_get`.
      if (ops.length) yield stateDelta(ops as JsonPatchOperation[]);
    }
    if (event.type === "result") result = event.result;
  }
  yield* mapper.closeAll();
  if (!result) throw new InvalidStateError("The run ended without a result.");
  return result;
}

/** The closing events: STATE_SNAPSHOT (with the paused session), MESSAGES_SNAPSHOT and RUN_FINISHED. */
function* finish(
  o: AguiRunOptions,
  invocationState: InvocationState,
  result: AgentResult,
  ids: { mapper: AguiEventMapper; newId: () => string; toolMessageIds: Map<string, string> },
): Generator<AGUIEvent> {
  const { agent } = o;
  const clientOnly =
    result.stopReason === "interrupt" && result.interrupts.every((i) => i.name === CLIENT_TOOL_INTERRUPT);
  const pendingClient = clientOnly ? result.interrupts.map((i) => toAguiInterrupt(i, agent).toolCallId ?? "") : [];
  const transcript =
    result.stopReason === "interrupt"
      ? [...agent.messages, ...pausedMessages(agent, ids.mapper.responseId)]
      : agent.messages;
  // The host runs browser tools and answers with tool messages, not a resume.
  if (clientOnly) agent.discardInterrupts();

  yield* snapshots(o, invocationState, transcript, ids);
  const outcome: RunFinishedOutcome =
    result.stopReason === "cancelled"
      ? { type: "cancelled" }
      : result.stopReason === "interrupt" && !clientOnly
        ? { type: "interrupt", interrupts: result.interrupts.map((i) => toAguiInterrupt(i, agent)) }
        : pendingClient.length
          ? { type: "success", pendingToolCallIds: pendingClient }
          : { type: "success" };
  yield runFinished(o.input, outcome);
}

/** STATE_SNAPSHOT (with the paused session) and MESSAGES_SNAPSHOT of the run as it stands. */
function* snapshots(
  o: AguiRunOptions,
  invocationState: InvocationState,
  transcript: readonly Message[],
  ids: { newId: () => string; toolMessageIds: Map<string, string> },
): Generator<AGUIEvent> {
  const shared = runContext.sharedState.find(invocationState);
  // An owned state is the run's to finish: it goes out as it is, with the session beside it.
  const outState: Record<string, unknown> = o.ownsInput && shared ? shared : { ...shared };
  const snapshot = sessionStateSnapshot(invocationState, o.logger ?? defaultLogger);
  if (snapshot) outState[SESSION_STATE_KEY] = snapshot;
  else delete outState[SESSION_STATE_KEY];
  yield stateSnapshot(outState);
  yield messagesSnapshot(toAguiMessages([...transcript], ids.newId, ids.toolMessageIds));
}

/** The paused assistant message and the results its batch already produced, for the snapshot. */
function pausedMessages(agent: Agent, responseId: string | undefined): Message[] {
  const ctx = pausedBatchMessages(agent.interruptState.context);
  if (!ctx) return [];
  if (ctx.toolUseMessage.id === undefined && responseId !== undefined) ctx.toolUseMessage.id = responseId;
  const out: Message[] = [ctx.toolUseMessage];
  if (ctx.toolResults?.length) out.push({ role: "user", content: ctx.toolResults });
  return out;
}
