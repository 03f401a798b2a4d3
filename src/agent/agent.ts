/**
 * The agent: a model, tools, hooks and a transcript, run by the event loop.
 *
 * @module
 */
import { lazy } from "../lazy.js";
import { ToolDefinitionError, UserError } from "../errors.js";
import type { Model, ToolSpec } from "./model.js";
import { positiveIntegerOption } from "../options.js";
import { AgentInitializedEvent, type InvocationState } from "./events.js";
import { HookRegistry, type HookProvider } from "./hooks.js";
import { InterruptState, type InterruptResponse } from "./interrupts/interrupt.js";
import type { AuditLog } from "./audit/audit.js";
import type { ExecutionLedger } from "./ledger/ledger.js";
import { DEFAULT_MAX_REQUEST_MEDIA_BYTES, DEFAULT_TOOL_GRACE_MS, DEFAULT_TOOL_TIMEOUT_MS } from "./limits.js";
import { MemoryExecutionLedger } from "./ledger/memory-ledger.js";
import type { ContentBlock, JsonObject, Message } from "./messages/messages.js";
import { ModelInputChain } from "./middleware.js";
import type { AgentResult } from "./result.js";
import { AgentState } from "./state.js";
import type { AgentStreamEvent } from "./stream-events.js";
import type { ToolExecutor } from "./tools/tool-executor.js";
import type { AgentTool } from "./tools/tools.js";
import { prepareSpecs } from "./tools/tool-schema.js";
import { linkedAbort } from "./shared/abort.js";

/** Options of {@link Agent}. */
export interface AgentConfig {
  /** Used in events, interrupts and logs. Default `"agent"`. */
  name?: string;
  model: Model;
  systemPrompt?: string;
  tools?: AgentTool[];
  hooks?: HookProvider[];
  /** Starting transcript (copied). */
  messages?: Message[];
  /** Starting agent state (JSON). */
  state?: JsonObject;
  /** `concurrent` (default) runs a batch's calls in parallel; `sequential` one after another. */
  toolExecutor?: ToolExecutor;
  /** How many times hooks may ask to retry one model call. Default 6. */
  maxModelRetries?: number;
  /** How many times hooks may ask to retry one tool call. Default 3. */
  maxToolRetries?: number;
  /**
   * Bytes of images and documents (base64 decoded) one model request may carry, counted from the
   * newest; older media are left out of that request with a note (the transcript keeps them).
   * Default 16 MiB (`DEFAULT_MAX_REQUEST_MEDIA_BYTES`).
   */
  maxMediaBytes?: number;
  /**
   * The record of which calls ran: every call is claimed here before it runs and settled with its
   * result, so no call runs twice (a retry, a replayed resume, a second tab). Default: a
   * {@link MemoryExecutionLedger} of this agent. A run's `invocationState` may carry its own (the
   * edge handler passes its thread store's).
   */
  ledger?: ExecutionLedger;
  /** Claim tools annotated `readOnlyHint` or `idempotentHint` in the ledger too. Default `false` (they skip it). */
  ledgerAllTools?: boolean;
  /** How long a claim holds without a result before its outcome is `unknown`. Default 15 minutes (`DEFAULT_LEASE_MS`). */
  ledgerLeaseMs?: number;
  /**
   * Deadline of one tool call, in ms, for tools without their own `timeoutMs`: past it the call's
   * `signal` aborts with a `ToolTimeoutError`, and the model reads the call's error. Default 5 minutes.
   */
  toolTimeoutMs?: number;
  /**
   * How long a callback has, once its signal aborted (its deadline, or a Stop at the edge), to settle
   * before it is abandoned (its outcome is unknown, and a late result is recorded
   * in the ledger only). Default 5 s.
   */
  toolGraceMs?: number;
  /**
   * The audit trail: the gates record what they asked and what was decided, the runner what ran.
   * A run's `invocationState` may carry its own (the edge handler's). Default: none (nothing recorded).
   */
  audit?: AuditLog;
}

/** What {@link Agent.invoke} accepts. */
export type AgentInput = string | ContentBlock[] | Message[] | InterruptResponse[] | undefined;

/** Options of one invocation. */
export interface InvokeOptions {
  /** Per-run data handed to every hook event (forwarded props, grants, run ids …). Default `{}`. */
  invocationState?: InvocationState;
  /** Cancels the run; it ends with `stopReason: "cancelled"` and a consistent transcript. */
  signal?: AbortSignal;
}

/**
 * An agent: runs its model in a loop, calling tools, until the model answers.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [weather], hooks: [new MaxToolCallsGuard()] });
 * const result = await agent.invoke("Weather in Oslo?");
 * if (result.stopReason === "interrupt") {
 *   const answers = result.interrupts.map((i) => ({ interruptResponse: { interruptId: i.id, response: { approved: true } } }));
 *   await agent.invoke(answers);
 * }
 * ```
 */
export class Agent {
  readonly name: string;
  model: Model;
  systemPrompt: string | undefined;
  /** The transcript. Never holds a toolUse without its toolResult. */
  messages: Message[];
  readonly state: AgentState;
  readonly hooks: HookRegistry = new HookRegistry();
  /** Rewrites the copy of the conversation sent to the model. */
  readonly modelInput: ModelInputChain = new ModelInputChain();
  /** Interrupts of a paused run (serialise with `toJSON()`, restore with `InterruptState.fromJSON`). */
  interruptState: InterruptState = new InterruptState();
  /** The execution ledger (see {@link AgentConfig.ledger}). */
  readonly ledger: ExecutionLedger;
  /** The audit trail (see {@link AgentConfig.audit}), if any. */
  readonly audit: AuditLog | undefined;
  /** Deadline of a call to a tool without its own `timeoutMs` (see {@link AgentConfig.toolTimeoutMs}). */
  readonly toolTimeoutMs: number;
  /** Grace of a call whose signal aborted (see {@link AgentConfig.toolGraceMs}). */
  readonly toolGraceMs: number;
  #tools = new Map<string, AgentTool>();
  #initialized = false;
  #running = false;
  /** Whether every tool's spec can be read (see {@link Agent.prepareTools}); a new tool clears it. */
  #specsReady = false;
  #signal: AbortSignal | undefined;
  readonly #executor: ToolExecutor;
  readonly #maxModelRetries: number;
  readonly #maxToolRetries: number;
  readonly #maxMediaBytes: number;
  readonly #ledgerSettings: { recordAll: boolean; leaseMs: number | undefined };

  /** @param config - See {@link AgentConfig}. */
  constructor(config: AgentConfig) {
    this.name = config.name ?? "agent";
    this.model = config.model;
    this.systemPrompt = config.systemPrompt;
    this.messages = structuredClone(config.messages ?? []);
    this.state = new AgentState(config.state);
    this.#executor = config.toolExecutor ?? "concurrent";
    this.#maxModelRetries = config.maxModelRetries ?? 6;
    this.#maxToolRetries = config.maxToolRetries ?? 3;
    this.#maxMediaBytes = positiveIntegerOption("maxMediaBytes", config.maxMediaBytes, DEFAULT_MAX_REQUEST_MEDIA_BYTES);
    this.ledger = config.ledger ?? new MemoryExecutionLedger();
    this.audit = config.audit;
    this.#ledgerSettings = { recordAll: config.ledgerAllTools ?? false, leaseMs: config.ledgerLeaseMs };
    this.toolTimeoutMs = positiveIntegerOption("toolTimeoutMs", config.toolTimeoutMs, DEFAULT_TOOL_TIMEOUT_MS);
    this.toolGraceMs = positiveIntegerOption("toolGraceMs", config.toolGraceMs, DEFAULT_TOOL_GRACE_MS);
    for (const t of config.tools ?? []) this.addTool(t);
    for (const h of config.hooks ?? []) this.hooks.addHook(h);
  }

  /** Whether `AgentInitializedEvent` has fired (at the start of the first invocation). */
  get initialized(): boolean {
    return this.#initialized;
  }

  /** Whether an invocation is running. */
  get running(): boolean {
    return this.#running;
  }

  /**
   * The running invocation's abort signal (`undefined` between runs): hooks that do slow work of
   * their own (a summary, a fetch) pass it on, so a cancelled run is not held open by them.
   */
  get signal(): AbortSignal | undefined {
    return this.#signal;
  }

  /**
   * Adds a tool.
   * @throws ToolDefinitionError when a tool of that name exists.
   */
  addTool(tool: AgentTool): void {
    if (this.#tools.has(tool.name)) throw new ToolDefinitionError(`The agent already has a tool named "${tool.name}".`);
    this.#tools.set(tool.name, tool);
    this.#specsReady = false;
  }

  /** Removes a tool by name; returns whether it existed. */
  removeTool(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** The tool registered under `name` (own entries only). */
  tool(name: string): AgentTool | undefined {
    return this.#tools.get(name);
  }

  /** Names of the registered tools. */
  toolNames(): string[] {
    return [...this.#tools.keys()];
  }

  /**
   * Specs of the registered tools, as sent to the model.
   * @throws ToolDefinitionError when a tool's JSON Schema is derived from its zod schema on demand and
   *   has not been yet: see {@link Agent.prepareTools}.
   */
  toolSpecs(): ToolSpec[] {
    return [...this.#tools.values()].map((t) => t.spec);
  }

  /**
   * Derives the JSON Schema of every tool whose schema is converted on demand (`tool()` with a zod mini
   * schema or zod 3.25's `zod/v4`: the converter loads with the runner, at the first run, not with the
   * page). Every run does this before anything else; call it at start-up to find a bad schema sooner.
   * @returns Resolves once every tool's spec can be read.
   * @throws ToolDefinitionError for a schema that gives no object schema.
   */
  async prepareTools(): Promise<void> {
    prepareSpecs(this.toolSpecs(), (await loadRunner()).zodJsonSchema);
  }

  /** Drops a paused run's pending calls (they never ran and leave no trace in the transcript). */
  discardInterrupts(): void {
    this.interruptState.clear();
  }

  /**
   * Runs the agent to completion (or until it pauses on interrupts).
   * @param input - A prompt, content blocks, messages, or interrupt answers to resume a paused run.
   *   Nothing (`undefined`) while the paused run has no open question (every one answered, or none
   *   asked: a checkpoint of a run cut mid-batch) goes on with its batch.
   * @param options - `invocationState` and `signal`.
   * @returns The {@link AgentResult}.
   * @throws PendingInterruptsError, UnknownInterruptIdError, PartialResumeError, InvalidInterruptResponseError
   *   for resume mistakes (before any hook runs); ToolDefinitionError for a tool whose zod schema gives no
   *   object JSON Schema (see {@link Agent.prepareTools}; before the input is read); HookError, ModelError …
   *   when the run fails. The first run loads the runner's code first: a failed load rejects that run, and
   *   the next one loads it again.
   */
  async invoke(input?: AgentInput, options?: InvokeOptions): Promise<AgentResult> {
    // No one reads the stream events here: the loop runs without the queue and the two async generators
    // of stream(), which cost several promise hops per event (about a dozen events per tool cycle).
    return this.#run(input, options, DISCARD, () => {});
  }

  /**
   * Runs the agent, yielding {@link AgentStreamEvent}s as they happen; the last is `{ type: "result" }`.
   * Same input and errors as {@link Agent.invoke}.
   */
  async *stream(input?: AgentInput, options?: InvokeOptions): AsyncGenerator<AgentStreamEvent, AgentResult> {
    const queue = new (await loadRunner()).EventQueue<AgentStreamEvent>();
    let abort: (() => void) | undefined;
    const run = this.#run(input, options, queue, (cancel) => {
      abort = cancel;
    });
    try {
      return yield* queue.drain(run);
    } finally {
      // A consumer that stops iterating early cancels the run; the agent stays busy until the
      // loop has wound down (AfterInvocation fired, transcript closed), so no second run overlaps it.
      abort?.();
      await run.then(undefined, () => undefined);
    }
  }

  /** One invocation, its stream events pushed to `queue`; `onStart` gets the function that cancels it. */
  async #run(
    input: AgentInput,
    options: InvokeOptions = {},
    queue: { push(e: AgentStreamEvent): void },
    onStart: (cancel: () => void) => void,
  ): Promise<AgentResult> {
    if (this.#running)
      throw new UserError(`Agent "${this.name}" is already running; wait for it or use another agent.`);
    this.#running = true;
    const controller = linkedAbort(options.signal);
    onStart(() => controller.abort());
    this.#signal = controller.signal;
    try {
      const invocationState = options.invocationState ?? {};
      const { runLoop, runInput, zodJsonSchema } = loaded ?? (await loadRunner());
      // A tool whose JSON Schema cannot be derived fails the run here, before the input is read or any hook runs
      // (and every run after it, until its tools change).
      if (!this.#specsReady) {
        prepareSpecs(this.toolSpecs(), zodJsonSchema);
        this.#specsReady = true;
      }
      const loopInput = runInput(this, input);
      if (!this.#initialized) {
        this.#initialized = true;
        await this.hooks.invoke(new AgentInitializedEvent(this, invocationState));
      }
      const settings = {
        executor: this.#executor,
        maxModelRetries: this.#maxModelRetries,
        maxToolRetries: this.#maxToolRetries,
        maxMediaBytes: this.#maxMediaBytes,
        ledger: this.#ledgerSettings,
      };
      return await runLoop(this, loopInput, invocationState, controller.signal, settings, queue);
    } finally {
      controller.unlink();
      controller.abort();
      this.#running = false;
      this.#signal = undefined;
    }
  }
}

/** The runner's module once loaded: later runs take it without a wait. */
let loaded: typeof import("./runner.js") | undefined;
/** The runner itself loads with the first run (see runner.ts and {@link lazy}). */
const loadRunner = lazy(() => import("./runner.js").then((m) => (loaded = m)));

/** Where invoke() sends the stream events: nowhere. */
const DISCARD = { push(): void {} };
