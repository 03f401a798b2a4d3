/**
 * `withLedger`: AI SDK tools whose `execute` goes through the execution ledger, so a call runs once
 * however often its approval is replayed, sent twice at once, or retried after a crash.
 *
 * @module
 */
import type { ToolExecutionOptions, ToolSet } from "ai";
import type { AuditLog } from "../agent/audit/audit.js";
import { recordExecution } from "../agent/audit/audit-execution.js";
import { asShipped, claimIn, NamedCall, settleIn } from "../agent/ledger/memory-sync.js";
import { callText, type ClaimOutcome, type ExecutionLedger, type LedgerResult } from "../agent/ledger/ledger.js";
import type { JsonValue } from "../agent/messages/messages.js";
import { CallInProgressError, UserError } from "../errors.js";
import { defaultLogger, type Logger } from "../logger.js";
import { threadAudit } from "./audit.js";
import { approvedEdit, carriesEdit } from "./edits.js";
import { type ApprovalEditError, CallOutcomeUnknownError, RecordedCallFailureError } from "./errors.js";

/** Options of {@link withLedger}. */
export interface WithLedgerOptions {
  /** Where calls are claimed and settled (a `MemoryExecutionLedger`, a thread store's ledger, …). */
  ledger: ExecutionLedger;
  /** The conversation; part of every call's key. */
  threadId: string;
  /** How long a claim holds without a result before its outcome is unknown, ms. Default: the ledger's (15 min). */
  leaseMs?: number | undefined;
  /**
   * Where each execution is recorded (claimed and its result, a replay, an unknown outcome), in the
   * thread's chain. A failed write is logged; the ledger, not the trail, decides what runs. Default: none.
   */
  audit?: AuditLog | undefined;
  logger?: Logger | undefined;
}

/** What a ledgered tool's `execute` gets: the AI SDK's options and the call's idempotency key. */
export type LedgeredExecutionOptions<CONTEXT = unknown> = ToolExecutionOptions<CONTEXT> & {
  /** `kw1-…`: the same for every replay of this call; pass it on (a payment API's `Idempotency-Key`). */
  idempotencyKey: string;
};

type Execute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown;

/**
 * Wraps each tool's `execute` through `ledger`, keyed by thread, tool call id and the canonical
 * arguments (`executionKey`, the key the agent's runner uses):
 * - claimed → it runs (its options carry `idempotencyKey`), then its result (or failure) is settled;
 * - `done` → the recorded result is returned (a recorded failure is thrown as
 *   {@link RecordedCallFailureError}), the tool does not run;
 * - `running` → {@link CallInProgressError}, the tool does not run;
 * - `unknown` (claimed, never settled: a crash mid-call) → {@link CallOutcomeUnknownError}: not run
 *   again; the model reads the "did this go through?" question from the tool error.
 *
 * A call approved with edited arguments (`approvalReason({ scope, editedArgs })`) runs with the edit
 * `kabooToolApproval` checked and recorded in the same `ledger`, under the model's call's key; an
 * edit no decision recorded for the call throws {@link ApprovalEditError} (it does not run at all).
 *
 * Tools without `execute` (client-side tools) are kept as they are. A streaming `execute` (an
 * `async function*`) still streams, and its last value is recorded (a replay yields that value once);
 * a plain function that returns an async iterable is not supported (its promise is not streamed).
 *
 * @param tools - The AI SDK tool set.
 * @param options - See {@link WithLedgerOptions}.
 * @returns A new tool set of the same shape.
 * @throws UserError when `threadId` is not a string or `ledger` has no `claim`.
 * @example
 * ```ts
 * const ledger = new MemoryExecutionLedger();
 * const result = await generateText({ model, messages, tools: withLedger(tools, { ledger, threadId }) });
 * ```
 */
export function withLedger<TOOLS extends ToolSet>(tools: TOOLS, options: WithLedgerOptions): TOOLS {
  if (typeof options.threadId !== "string") throw new UserError("withLedger needs a threadId string.");
  if (typeof options.ledger?.claim !== "function") throw new UserError("withLedger needs an execution ledger.");
  const out: Record<string, unknown> = {};
  // Built per request: the keys, not entries (no pair per tool), and a copy whose `execute` is then replaced.
  for (const name of Object.keys(tools)) {
    const tool = tools[name] as ToolSet[string];
    const execute = (tool as { execute?: Execute }).execute;
    if (typeof execute !== "function") out[name] = tool;
    else {
      const copy: Record<string, unknown> = { ...tool };
      copy.execute = ledgered(name, tool, execute, options);
      out[name] = copy;
    }
  }
  return out as TOOLS;
}

/** A claimed call: run it with `input` and `options` (they carry the idempotency key), then `settle` its outcome. */
interface Claimed {
  /** The model's arguments, or the person's edit when the approval carries one. */
  input: unknown;
  options: LedgeredExecutionOptions;
  /** Settles the outcome (a failed write is logged); a promise only when the ledger or the trail answers later. */
  settle: (result: LedgerResult) => undefined | Promise<void>;
}

/** What a claim leads to: the recorded outcome of a finished call, or the call to run now. */
type Claim = { done: unknown } | Claimed;

/** What every call of one wrapped tool shares. */
interface ToolLedger {
  tool: string;
  definition: ToolSet[string];
  o: WithLedgerOptions;
  log: Logger;
  claimOptions: { leaseMs: number } | undefined;
  audit: ReturnType<typeof threadAudit>;
}

/**
 * Claims the call: the recorded outcome of a finished one, or what the claimed one needs. Synchronous
 * when the ledger answers so (a memory ledger as it ships) and the call carries no edit: no promise
 * before the tool runs. The call is named as the runner names it (its text; the key is hashed when read).
 */
function claimCall(t: ToolLedger, input: unknown, options: ToolExecutionOptions<unknown>): Claim | Promise<Claim> {
  const call = new NamedCall(callText({ threadId: t.o.threadId, toolUseId: options.toolCallId, input }));
  // An approved edit runs under the approved call's key: a replay of the approval runs nothing again.
  if (!carriesEdit(options)) return claimNamed(t, call, input, options);
  return approvedEdit({ ...t.o, name: t.tool, tool: t.definition, key: call.key }, options).then((edit) =>
    claimNamed(t, call, edit ?? input, options),
  );
}

function claimNamed(
  t: ToolLedger,
  call: NamedCall,
  input: unknown,
  options: ToolExecutionOptions<unknown>,
): Claim | Promise<Claim> {
  // The memory ledger as it ships is asked with the call itself: it keeps it under its text, not hashed.
  const name = asShipped(t.o.ledger) ? call : call.key;
  const outcome = claimIn(t.o.ledger, name, t.claimOptions);
  const at = { call, name, input, options };
  // Any thenable a ledger of one's own answers with is awaited, as before.
  if (typeof (outcome as Partial<PromiseLike<ClaimOutcome>>).then === "function")
    return Promise.resolve(outcome).then((x) => heldCall(t, x, at));
  return heldCall(t, outcome as ClaimOutcome, at);
}

/** The call as the ledger named it, with what it runs with. */
interface NamedAt {
  call: NamedCall;
  name: string | NamedCall;
  input: unknown;
  options: ToolExecutionOptions<unknown>;
}

/** What the ledger's answer leads to: the recorded outcome, a refusal (thrown), or the claimed call. */
function heldCall(t: ToolLedger, outcome: ClaimOutcome, at: NamedAt): Claim | Promise<Claim> {
  const { tool } = t;
  const { toolCallId } = at.options;
  switch (outcome.status) {
    case "done":
      return recordCall(t, at, "done", outcome.result).then(() => ({
        done: replay(tool, toolCallId, outcome.result),
      }));
    case "running":
      throw new CallInProgressError(tool, toolCallId, outcome.leaseExpiresAt);
    case "unknown":
      return recordCall(t, at, "unknown").then(() => {
        throw new CallOutcomeUnknownError(tool, toolCallId, outcome.claimedAt);
      });
    case "claimed":
      break;
    default:
      throw new Error(`Unknown ledger outcome ${JSON.stringify(outcome satisfies never)}`);
  }
  const { call } = at;
  // The key is hashed when the tool reads it (most never do; the default ledger names the call by its text).
  const ledgeredOptions = {
    ...at.options,
    get idempotencyKey() {
      return call.key;
    },
  };
  return { input: at.input, options: ledgeredOptions, settle: (result) => settleCall(t, at, outcome.token, result) };
}

/** Records what the ledger answered for the call in the trail. */
function recordCall(
  t: ToolLedger,
  at: NamedAt,
  claim: "claimed" | "done" | "unknown",
  result?: LedgerResult,
): Promise<void> {
  const facts = { tool: t.tool, toolUseId: at.options.toolCallId, idempotencyKey: at.call.key };
  return recordExecution(t.audit, { ...facts, claim, result });
}

/**
 * Settles the claimed call's outcome under `token`, then records it; a failed settle is logged (the call ran: its
 * result goes back to the model, and the claim's outcome becomes unknown later). A promise only when the ledger or
 * the trail answers later.
 */
function settleCall(t: ToolLedger, at: NamedAt, token: string, result: LedgerResult): undefined | Promise<void> {
  let settled: Promise<void> | undefined;
  try {
    settled = settleIn(t.o.ledger, at.name, token, result);
  } catch (error) {
    unsaved(t, at, error);
  }
  // No closure for the usual call: a memory ledger settles at once, and without a trail nothing is recorded.
  if (!settled) return t.audit ? recordCall(t, at, "claimed", result) : undefined;
  const recorded = () => (t.audit ? recordCall(t, at, "claimed", result) : undefined);
  return settled.then(recorded, (error) => {
    unsaved(t, at, error);
    return recorded();
  });
}

/** Logs a settle that failed (the call ran: its result goes back to the model). */
function unsaved(t: ToolLedger, at: NamedAt, error: unknown): void {
  t.log.error("kaboo: could not record a tool call's result", {
    tool: t.tool,
    toolCallId: at.options.toolCallId,
    error: String(error),
  });
}

function ledgered(tool: string, definition: ToolSet[string], execute: Execute, o: WithLedgerOptions): Execute {
  const t: ToolLedger = {
    tool,
    definition,
    o,
    log: o.logger ?? defaultLogger,
    claimOptions: o.leaseMs === undefined ? undefined : { leaseMs: o.leaseMs },
    audit: threadAudit(o.audit, o.threadId),
  };
  const claim = (input: unknown, options: ToolExecutionOptions<unknown>) => claimCall(t, input, options);
  // The AI SDK streams a tool only when `execute` itself returns an async iterable (it does not await
  // it first): a streaming tool stays an async generator, the others return a promise.
  if (Object.prototype.toString.call(execute) === "[object AsyncGeneratorFunction]") {
    return async function* ledgeredStream(input, options) {
      const claimed = await claim(input, options);
      if ("done" in claimed) {
        yield claimed.done;
        return;
      }
      let last: unknown;
      try {
        for await (const value of execute(claimed.input, claimed.options) as AsyncIterable<unknown>) {
          last = value;
          yield value;
        }
      } catch (error) {
        await claimed.settle(failure(error));
        throw error;
      }
      await claimed.settle(success(last));
    };
  }
  return async function ledgeredExecute(input, options) {
    const pending = claim(input, options);
    const claimed = pending instanceof Promise ? await pending : pending;
    if ("done" in claimed) return claimed.done;
    let result: unknown;
    try {
      result = await execute(claimed.input, claimed.options);
    } catch (error) {
      const settled = claimed.settle(failure(error));
      if (settled) await settled;
      throw error;
    }
    const settled = claimed.settle(success(result));
    if (settled) await settled;
    return result;
  };
}

function success(output: unknown): LedgerResult {
  return output === undefined
    ? { status: "success", content: [] }
    : { status: "success", content: [], structuredContent: output as JsonValue };
}

function failure(error: unknown): LedgerResult {
  const text = error instanceof Error ? error.message : String(error);
  return { status: "error", content: [{ type: "text", text }] };
}

function replay(tool: string, toolCallId: string, result: LedgerResult): unknown {
  if (result.status === "success") return result.structuredContent;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  throw new RecordedCallFailureError(tool, toolCallId, text);
}
