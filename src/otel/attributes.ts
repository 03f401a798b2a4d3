/**
 * The attribute names the tracing hook writes: the OpenTelemetry GenAI semantic conventions' (development
 * status, as of semantic-conventions 1.41 and its GenAI successor repository), and this package's own
 * `kaboo.*` names for what the conventions do not cover yet (approval decisions on tool spans are only
 * proposed there, semantic-conventions-genai #95 and #373; a denied call has no span there, #320).
 *
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/ (inference `chat` spans, `execute_tool`)
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/ (`invoke_agent`, `invoke_workflow`)
 * @module
 */

/** GenAI semantic-convention attribute names (`gen_ai.*`, and `error.type`). */
export const GEN_AI = {
  /** `chat`, `execute_tool`, `invoke_agent`, `invoke_workflow`. */
  operation: "gen_ai.operation.name",
  /** The model provider, when the hook is told it (`openai`, `anthropic`, …). */
  provider: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  /** The conversation: the run's thread id. */
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  /** A string array: `stop`, `tool_calls`, `length`, `content_filter`. */
  finishReasons: "gen_ai.response.finish_reasons",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  /** Always `function` here. */
  toolType: "gen_ai.tool.type",
  /** Content (opt-in): the call's arguments, JSON. */
  toolArguments: "gen_ai.tool.call.arguments",
  /** Content (opt-in): the result the model reads, JSON. */
  toolResult: "gen_ai.tool.call.result",
  /** Content (opt-in): the transcript sent to the model, JSON in the conventions' message shape. */
  inputMessages: "gen_ai.input.messages",
  /** Content (opt-in): the model's answer, JSON in the conventions' message shape. */
  outputMessages: "gen_ai.output.messages",
  /** Content (opt-in): the system prompt, JSON. */
  systemInstructions: "gen_ai.system_instructions",
  /** The error's class name or code, on a span that failed. */
  errorType: "error.type",
} as const;

/** This package's attribute names (namespaced until the conventions settle; listed in the README). */
export const KABOO = {
  /** The run (AG-UI `runId`), on `invoke_agent`. */
  runId: "kaboo.run.id",
  /** Whether the run resumes a paused one, on `invoke_agent`. */
  resuming: "kaboo.run.resuming",
  /** How the run ended (`endTurn`, `interrupt`, …), on `invoke_agent`. */
  stopReason: "kaboo.run.stop_reason",
  /** How many questions the run left open, on `invoke_agent`. */
  interrupts: "kaboo.run.interrupts",
  /** `asked`, `approved`, `denied`, `skipped`, `expired`, `refused` or `granted` (a remembered grant). */
  decision: "kaboo.approval.decision",
  /** The interrupt the question was asked under. */
  interruptId: "kaboo.approval.interrupt_id",
  /** The gate rule's pattern. */
  rule: "kaboo.approval.rule",
  /** The subject's key (what a remembered decision covers), when the rule names one. */
  subject: "kaboo.approval.subject",
  /** The scope the answer granted: `once`, `thread` or `always`. */
  scope: "kaboo.approval.scope",
  /** Who answered, or whose grant let the call through: the host's principal, or its SHA-256 (hex). */
  principal: "kaboo.approval.principal",
  /** Approvals the rule needs (more than 1 under four eyes). */
  required: "kaboo.approval.required",
  /** Approvals given so far, while a four-eyes question is still open. */
  approvals: "kaboo.approval.approvals",
  /** The question's deadline, ISO 8601. */
  expiresAt: "kaboo.approval.expires_at",
  /** The grant that let the call through (`run:<tool>` for an approval given earlier in the run). */
  grantId: "kaboo.approval.grant_id",
  /** Why an answer did not count (`refused`), as the audit trail notes it. */
  note: "kaboo.approval.note",
  /** The audit entry of the latest approval record of the call (its sequence number in the thread's trail). */
  auditSeq: "kaboo.approval.audit_seq",
  /** What the execution ledger answered: `ran`, `replayed` or `outcome_unknown`. */
  ledger: "kaboo.ledger.answer",
  /** For `outcome_unknown`: the person's answer (`run_again`, `treat_as_done`, `cancel`). */
  ledgerAnswer: "kaboo.ledger.person_answer",
  /** The interrupt id of a question about the call that is not an approval (the ledger's "did it run?", a tool's own). */
  question: "kaboo.tool.question",
  /** True when a hook cancelled the call (a refusal, a guard): it did not run. */
  cancelled: "kaboo.tool.cancelled",
  /** The node's id, on a node span. */
  nodeId: "kaboo.node.id",
  /** How the node execution ended (`completed`, `failed`, `interrupted`, …), on a node span. */
  nodeStatus: "kaboo.node.status",
  /** How the orchestrator's invocation ended, on `invoke_workflow`. */
  workflowStatus: "kaboo.workflow.status",
  /** The orchestrator's kind (`graph`, `swarm`), on `invoke_workflow`. */
  workflowType: "kaboo.workflow.type",
} as const;

/** Span events the hook adds to a tool span, one per approval or ledger record, at the time it was made. */
export const KABOO_EVENTS = {
  asked: "kaboo.approval.asked",
  decided: "kaboo.approval.decided",
  granted: "kaboo.approval.granted",
  ledger: "kaboo.ledger.answered",
} as const;
