/**
 * The parts of `@strands-agents/sdk` (1.x) the adapter touches, declared structurally so this entry
 * typechecks and bundles without the SDK: the application passes its own copy of the SDK's module
 * (`import * as strands from "@strands-agents/sdk"`), and the adapter registers on its event classes.
 *
 * @module
 */

/** A JSON value as Strands types it. */
export type StrandsJson = string | number | boolean | null | StrandsJson[] | { [key: string]: StrandsJson };

/** What Strands' `event.interrupt()` takes. */
export interface StrandsInterruptParams {
  name: string;
  reason?: unknown;
  response?: unknown;
}

/** One interrupt in a Strands agent's interrupt state. */
export interface StrandsInterrupt {
  readonly id: string;
  readonly name: string;
  readonly reason?: unknown;
  response?: unknown;
}

/** A Strands tool, as far as the adapter reads it. */
export interface StrandsTool {
  readonly name: string;
  readonly description?: string;
}

/** A Strands `StateStore` (`agent.appState`). */
export interface StrandsStateStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/** Options of a Strands hook callback. */
export interface StrandsHookOptions {
  /** Lower runs first (`HookOrder.SDK_FIRST` is -100, `SDK_LAST` 100). */
  order?: number;
}

/** What every Strands hook event has (`HookableEvent`). */
export interface StrandsHookableEvent {
  _shouldReverseCallbacks(): boolean;
}

/** A Strands event class, as `agent.addHook` takes it. */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's own constructor type (`new (...args: any[]) => T`)
export type StrandsEventClass<E extends StrandsHookableEvent> = new (...args: any[]) => E;

/** A Strands agent as its hook events carry it (`LocalAgent`, plus the `Agent` class's interrupt state). */
export interface StrandsAgent {
  readonly id?: string;
  readonly name?: string;
  appState: StrandsStateStore;
  readonly toolRegistry: { get(name: string): StrandsTool | undefined; list?(): StrandsTool[] };
  /** Public on the SDK's `Agent` class (`_interruptState`); where the answers to its interrupts are. */
  readonly _interruptState?: { interrupts: Record<string, StrandsInterrupt>; activated?: boolean };
  readonly cancelSignal?: AbortSignal;
  /** The SDK's `Agent.model` (its default model under a router): its `modelId` names the model on traces. */
  readonly model?: { readonly modelId?: string | undefined };
  /** The SDK's `Agent.cancel()`: the run stops at its next safe point (`stopReason: "cancelled"`). */
  cancel?(): void;
}

/** What a Strands plugin's `initAgent` is given. */
export interface StrandsHookHost {
  addHook<E extends StrandsHookableEvent>(
    eventType: StrandsEventClass<E>,
    callback: (event: E) => void | Promise<void>,
    options?: StrandsHookOptions,
  ): () => void;
}

/** A tool call as Strands' tool events carry it (`ToolUseData`). */
export interface StrandsToolUse {
  name: string;
  toolUseId: string;
  input: unknown;
}

/** One part of a Strands tool result (`TextBlock`, `JsonBlock`, media blocks). */
export interface StrandsResultPart {
  readonly type: string;
  readonly text?: string;
  readonly json?: unknown;
}

/** The image formats of Strands' `ImageBlock` the adapter writes. */
export type StrandsImageFormat = "png" | "jpeg" | "gif" | "webp";
/** The document formats of Strands' `DocumentBlock` the adapter writes. */
export type StrandsDocumentFormat = "pdf" | "json" | "txt" | "csv" | "md" | "html";

/** A Strands `ToolResultBlock`. */
export interface StrandsToolResult {
  readonly toolUseId: string;
  readonly status: "success" | "error";
  readonly content: readonly StrandsResultPart[];
  readonly error?: Error;
}

/** Strands' `BeforeToolCallEvent`. */
export interface StrandsBeforeToolCallEvent extends StrandsHookableEvent {
  readonly agent: StrandsAgent;
  toolUse: StrandsToolUse;
  readonly tool: StrandsTool | undefined;
  readonly invocationState: Record<string, unknown>;
  cancel: boolean | string;
  selectedTool: StrandsTool | undefined;
  interrupt(params: StrandsInterruptParams): unknown;
}

/** Strands' `AfterToolCallEvent`. */
export interface StrandsAfterToolCallEvent extends StrandsHookableEvent {
  readonly agent: StrandsAgent;
  readonly toolUse: StrandsToolUse;
  readonly tool: StrandsTool | undefined;
  result: StrandsToolResult;
  readonly error?: Error;
  readonly invocationState: Record<string, unknown>;
  retry?: boolean;
}

/** A Strands message (`Message`). */
export interface StrandsMessage {
  readonly role: "user" | "assistant";
  readonly content: readonly { readonly type: string }[];
}

/** Strands' `BeforeModelCallEvent`. */
export interface StrandsBeforeModelCallEvent extends StrandsHookableEvent {
  readonly agent: StrandsAgent;
  readonly invocationState: Record<string, unknown>;
  cancel: boolean | string;
  readonly projectedInputTokens?: number;
}

/** Strands' `AfterModelCallEvent`. */
export interface StrandsAfterModelCallEvent extends StrandsHookableEvent {
  readonly agent: StrandsAgent;
  readonly invocationState: Record<string, unknown>;
  readonly stopData?: { readonly message: StrandsMessage; readonly stopReason: string };
  readonly error?: Error;
  readonly attemptCount: number;
  retry?: boolean;
}

/** Strands' `BeforeInvocationEvent` / `AfterInvocationEvent`. */
export interface StrandsInvocationEvent extends StrandsHookableEvent {
  readonly agent: StrandsAgent;
  readonly invocationState: Record<string, unknown>;
}

/** Strands' `AgentResult`, as the adapter reads it. */
export interface StrandsAgentResult {
  readonly stopReason: string;
  readonly lastMessage: StrandsMessage;
  readonly interrupts?: readonly StrandsInterrupt[];
  readonly metrics?: {
    readonly cycleCount: number;
    readonly accumulatedUsage: {
      readonly inputTokens: number;
      readonly outputTokens: number;
      readonly totalTokens: number;
      readonly cacheReadInputTokens?: number;
      readonly cacheWriteInputTokens?: number;
    };
  };
}

/** Strands' `AgentResultEvent` (the run's result, after `AfterInvocationEvent`; not fired when the run fails). */
export interface StrandsAgentResultEvent extends StrandsHookableEvent {
  readonly agent: StrandsAgent;
  readonly result: StrandsAgentResult;
  readonly invocationState: Record<string, unknown>;
}

/**
 * The classes of `@strands-agents/sdk` the adapter uses: pass the SDK's module itself
 * (`import * as strands from "@strands-agents/sdk"`).
 */
export interface StrandsSdk {
  readonly BeforeInvocationEvent: StrandsEventClass<StrandsInvocationEvent>;
  readonly AfterInvocationEvent: StrandsEventClass<StrandsInvocationEvent>;
  readonly AgentResultEvent: StrandsEventClass<StrandsAgentResultEvent>;
  readonly BeforeModelCallEvent: StrandsEventClass<StrandsBeforeModelCallEvent>;
  readonly AfterModelCallEvent: StrandsEventClass<StrandsAfterModelCallEvent>;
  readonly BeforeToolCallEvent: StrandsEventClass<StrandsBeforeToolCallEvent>;
  readonly AfterToolCallEvent: StrandsEventClass<StrandsAfterToolCallEvent>;
  readonly ToolResultBlock: new (data: {
    toolUseId: string;
    status: "success" | "error";
    // biome-ignore lint/suspicious/noExplicitAny: the SDK's content block classes
    content: any[];
  }) => StrandsToolResult;
  readonly TextBlock: new (text: string) => StrandsResultPart;
  readonly JsonBlock: new (data: { json: StrandsJson }) => StrandsResultPart;
  readonly ImageBlock: new (data: {
    format: StrandsImageFormat;
    source: { bytes: Uint8Array } | { url: string };
  }) => StrandsResultPart;
  readonly DocumentBlock: new (data: {
    name: string;
    format: StrandsDocumentFormat;
    source: { bytes: Uint8Array };
  }) => StrandsResultPart;
}
