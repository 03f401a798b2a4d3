/**
 * ToolApprovalHook: lets a tool itself ask for a person's approval by replying
 * `{ "kaboo_approval": { … } }` instead of a result.
 *
 * @module
 */
import { InvalidStateError, UserError } from "../errors.js";
import { toolInterruptId } from "../agent/interrupts/interrupt-id.js";
import { BeforeToolCallEvent } from "../agent/events.js";
import type { HookProvider, HookRegistry } from "../agent/hooks.js";
import type { JsonObject, JsonValue } from "../agent/messages/messages.js";
import type { AgentTool, ToolContext, ToolOutput } from "../agent/tools/tools.js";
import { runContext } from "../agent/run-context.js";
import { GrantLookup } from "./approval/grant-lookup.js";
import {
  checkScopeOption,
  decideAnswer,
  findGrantCover,
  offeredScopes,
  refusalNote,
  type DecisionRecord,
} from "./approval/decision.js";
import { readAnswer, type ApprovalRequest, type ApprovalScope, type Decision } from "./approval/request.js";
import { approvalName, approvedForOtherInput, recordDecision } from "./approval/run.js";
import { auditDecision, auditGrantUse, auditRequest } from "./approval/audit.js";
import { approvalRequestIn, requestFromReply } from "./approval/tool-reply.js";
import { grantId } from "../grants/grant.js";
import { defaultLogger, type Logger } from "../logger.js";

/** What the host is told before the run continues, so the tool's service can honour the decision. */
export interface ToolDecision {
  decision: Decision;
  /** The tool's own request id, from its `kaboo_approval` reply. */
  requestId: string | undefined;
  tool: string;
  toolUseId: string;
  /** The arguments the second call will use (edited ones when the person edited them). */
  input: JsonValue;
  /** What the decision covers: `once`, or `thread`/`always` when the person chose to remember it. */
  scope: ApprovalScope;
  /** True when a remembered decision (a grant) answered the request without asking the person. */
  remembered: boolean;
}

/** Options of {@link ToolApprovalHook}. */
export interface ToolApprovalHookOptions {
  /** Agent name, used to name the approval request. Default `""`. */
  agentName?: string;
  /**
   * Called with every decision before the run continues (kaboo-runtime's `onDecision`): tell the
   * tool's service, which — not the agent — decides whether the second call runs.
   */
  onDecision?: (decision: ToolDecision) => void | Promise<void>;
  /**
   * Widest scope offered, as the gate's `remember`: `once`, `thread` or `always`. Wider than `once`
   * is offered only when the host remembers decisions, as for the gate. Default `once`.
   */
  remember?: ApprovalScope;
  /** HMAC secret for remembered grants, as the gate's: only grants whose signature verifies count. */
  secret?: string | CryptoKey | undefined;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  logger?: Logger;
}

const WRAPPED = Symbol("kaboo.toolApprovalWrapped");

/**
 * Lets tools ask the person to approve a call.
 *
 * When a tool replies with `kaboo_approval` instead of a result, the run pauses with the same
 * {@link ApprovalRequest} the gate raises, plus the tool's `requestId`; the reply never reaches
 * the model. It offers the scopes the gate would (up to `remember`, wider than `once` only when
 * the host remembers decisions), and a remembered grant for the same tool and subject answers the
 * request without asking (`onDecision` still runs, with `remembered: true`). On resume:
 * - approved: `onDecision` runs, then the tool is called once more (with the person's edits if
 *   any) and its result returned; if it asks again, the model reads that the call still needs
 *   approval (no loop);
 * - denied, skipped, expired or unreadable (an unreadable answer is a denial, as for the gate):
 *   `onDecision` runs, the tool is not called again, and the model reads the same note as for a
 *   gated call.
 *
 * @param options - See {@link ToolApprovalHookOptions}.
 * @example
 * ```ts
 * const approvals = new ToolApprovalHook({
 *   agentName: "ops",
 *   onDecision: (d) => fetch("/approvals", { method: "POST", body: JSON.stringify(d) }),
 * });
 * ```
 */
export class ToolApprovalHook implements HookProvider {
  readonly #name: string;
  readonly #agentName: string;
  readonly #onDecision: ToolApprovalHookOptions["onDecision"];
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #remember: ApprovalScope;
  readonly #grants: GrantLookup;

  constructor(options: ToolApprovalHookOptions = {}) {
    if (options.onDecision !== undefined && typeof options.onDecision !== "function") {
      throw new UserError("ToolApprovalHook onDecision must be a function.");
    }
    this.#remember = options.remember ?? "once";
    checkScopeOption(this.#remember);
    this.#agentName = options.agentName ?? "";
    this.#name = approvalName(this.#agentName);
    this.#onDecision = options.onDecision;
    this.#now = options.now ?? Date.now;
    this.#log = options.logger ?? defaultLogger;
    this.#grants = new GrantLookup(options.secret, this.#log);
  }

  registerHooks(registry: HookRegistry): void {
    registry.addCallback(BeforeToolCallEvent, async (event) => {
      const tool = event.selectedTool;
      if (!tool) return;
      await this.#applyEdit(event, tool);
      if (!(WRAPPED in tool)) event.selectedTool = this.#wrap(tool);
    });
  }

  /**
   * An approved edit replaces the call before it runs, so the transcript records the call as it ran
   * and gates registered after this hook judge the edited call. A gate that already approved this
   * call for other arguments did not approve the edit: the call is refused.
   */
  async #applyEdit(event: BeforeToolCallEvent, tool: AgentTool): Promise<void> {
    const { toolUse } = event;
    const answered = event.agent.interruptState.interrupts.get(toolInterruptId(toolUse.toolUseId, this.#name));
    if (answered?.response === undefined) return;
    const answer = readAnswer(answered.response);
    if (answer.decision !== "approved" || answer.editedArgs === undefined) return;
    if (!((await tool.validate?.(answer.editedArgs))?.ok ?? true)) return; // refused with a message at call time
    if (approvedForOtherInput(event.agent, toolUse.name, toolUse.toolUseId, answer.editedArgs)) {
      event.cancel = `The edited arguments for "${toolUse.name}" change a call that was approved for other arguments, so it did not run. Ask the person again.`;
      return;
    }
    event.toolUse = { ...toolUse, input: answer.editedArgs };
  }

  #wrap(inner: AgentTool): AgentTool {
    const wrapped: AgentTool & { [WRAPPED]: true } = {
      [WRAPPED]: true,
      name: inner.name,
      spec: inner.spec,
      call: (input, context) => this.#call(inner, input, context),
    };
    if (inner.annotations) (wrapped as { annotations?: unknown }).annotations = inner.annotations;
    if (inner.kind) (wrapped as { kind?: unknown }).kind = inner.kind;
    if (inner.validate) wrapped.validate = (input) => inner.validate!(input);
    return wrapped;
  }

  async #call(inner: AgentTool, input: unknown, context: ToolContext): Promise<ToolOutput> {
    const id = toolInterruptId(context.toolUse.toolUseId, this.#name);
    const asked = context.agent.interruptState.interrupts.get(id);
    if (asked?.response === undefined) return this.#firstCall(inner, input, context);
    const reason = (asked.reason ?? {}) as Partial<ApprovalRequest>;
    const record = decideAnswer({
      interruptId: id,
      response: asked.response,
      asked: reason,
      offered: offeredScopes({ invocationState: context.invocationState, remember: this.#remember, asked: reason }),
      now: this.#now(),
      principal: runContext.principal.find(context.invocationState) || null,
    });
    let callInput = input;
    const read = { interruptId: id, principal: record.principal, editedArgs: record.editedArgs };
    if (record.decision === "approved" && record.editedArgs !== undefined) {
      const checked = (await inner.validate?.(record.editedArgs)) ?? { ok: true as const, value: record.editedArgs };
      if (!checked.ok) {
        await auditDecision(context, { ...read, decision: "refused", note: "the edited arguments are invalid" });
        return error(
          `The person's edited arguments for "${inner.name}" are invalid, so the call did not run:\n${checked.error}`,
        );
      }
      callInput = checked.value;
    }
    const note = record.unreadable === undefined ? undefined : "the answer could not be read";
    await auditDecision(context, { ...read, decision: record.decision, scope: record.scope, note });
    if (record.unreadable !== undefined)
      this.#log.warn("approval answer not understood; treated as a denial", {
        tool: inner.name,
        problem: record.unreadable,
      });
    return this.#decided(
      inner,
      callInput,
      context,
      { ...record, remembered: false },
      reason.requestId,
      reason.subject ?? null,
    );
  }

  /**
   * The call before any answer: the tool's own result, or — when it asks for approval — the grant
   * that covers it, or the question (`interrupt()` throws to pause the run).
   */
  async #firstCall(inner: AgentTool, input: unknown, context: ToolContext): Promise<ToolOutput> {
    const output = await inner.call(input, context);
    const request = approvalRequestIn(output);
    if (request === undefined) return output;
    if (!request.ok)
      this.#log.warn("tool asked for approval with a malformed request; asking with defaults", { tool: inner.name });
    const r = request.ok ? request.value : {};
    const subject = typeof r.subject === "string" ? { key: r.subject, label: r.subject } : (r.subject ?? null);
    const requestId = r.requestId ?? r.id;
    const cover = await findGrantCover({
      invocationState: context.invocationState,
      grants: this.#grants,
      tool: inner.name,
      subjectKey: subject?.key ?? undefined,
      remember: this.#remember,
      now: this.#now(),
    });
    if (cover) {
      await auditGrantUse(context, cover.source === "grant" ? grantId(cover.grant) : undefined);
      return this.#decided(
        inner,
        input,
        context,
        { decision: "approved", scope: "once", remembered: true },
        requestId,
        subject,
      );
    }
    const reason = requestFromReply(r, {
      agentName: this.#agentName,
      tool: inner.name,
      toolUseId: context.toolUse.toolUseId,
      input,
      subject,
      scopes: offeredScopes({ invocationState: context.invocationState, remember: this.#remember }),
      requestId,
      now: this.#now(),
    });
    const interruptId = toolInterruptId(context.toolUse.toolUseId, this.#name);
    if (!context.agent.interruptState.interrupts.has(interruptId))
      await auditRequest(context, { interruptId, rule: inner.name, input, subject, expiresAt: reason.expiresAt });
    context.interrupt({ name: this.#name, reason: reason as unknown as JsonObject });
    throw new InvalidStateError("interrupt() returned without an answer; the run should have paused.");
  }

  /** Tells the host, records the decision, and runs the tool again when it was approved. */
  async #decided(
    inner: AgentTool,
    callInput: unknown,
    context: ToolContext,
    d: Pick<DecisionRecord, "decision" | "scope" | "unreadable"> & { remembered: boolean },
    requestId: string | undefined,
    subject: { key: string; label: string } | null,
  ): Promise<ToolOutput> {
    const { toolUse } = context;
    const decided: ToolDecision = {
      decision: d.decision,
      requestId,
      tool: inner.name,
      toolUseId: toolUse.toolUseId,
      input: callInput as JsonValue,
      scope: d.scope,
      remembered: d.remembered,
    };
    await this.#onDecision?.(decided);
    recordDecision(context.invocationState, {
      decision: d.decision,
      tool: inner.name,
      toolUseId: toolUse.toolUseId,
      subject: { key: subject?.key ?? null, label: subject?.label ?? inner.name },
      scope: d.scope,
    });
    if (d.decision !== "approved") return error(refusalNote(d, inner.name));
    const output = await inner.call(callInput, context);
    if (approvalRequestIn(output) !== undefined) {
      return error(
        `The call to "${inner.name}" still needs approval after it was approved; it did not complete. Tell the person instead of calling it again.`,
      );
    }
    return output;
  }
}

function error(text: string): ToolOutput {
  return { status: "error", content: [{ type: "text", text }] };
}
