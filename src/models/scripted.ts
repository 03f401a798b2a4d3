/**
 * A deterministic model driven by a script or by rules: for tests and the demo, no network.
 *
 * @module
 */
import type { Message, ToolResultBlock } from "../agent/messages/messages.js";
import { messageChars, transcriptChars } from "../agent/messages/transcript-size.js";
import { UserError } from "../errors.js";
import type { Model, ModelStopReason, ModelStreamEvent, ModelStreamOptions, ToolSpec, Usage } from "../agent/model.js";

/** One scripted response. */
export interface ScriptedTurn {
  text?: string;
  reasoning?: string;
  toolCalls?: { name: string; input?: unknown; id?: string; rawInput?: string }[];
  /** Default: `toolUse` when there are tool calls, else `endTurn`. */
  stopReason?: ModelStopReason;
  /** Default: estimated from the characters in and out (four a token). */
  usage?: Usage;
  /** Thrown instead of answering (e.g. to test retries). */
  error?: unknown;
  /** End the stream after this many events, without a stop event (a broken connection). */
  cutAfterEvents?: number;
}

/** What a responder is told about the call. */
export interface ScriptedRequest {
  messages: Message[];
  systemPrompt: string | undefined;
  toolSpecs: ToolSpec[];
  /** 0 for this model's first call. */
  callIndex: number;
  /** Text of the last user message that is not tool results. */
  lastUserText: string;
  /** Tool results in the last message, if it holds any. */
  lastToolResults: ToolResultBlock[];
}

/** Computes a turn from the request. */
export type ScriptedResponder = (request: ScriptedRequest) => ScriptedTurn | Promise<ScriptedTurn>;

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** Turns answered in order (each a turn or a responder), or one responder for every call. */
  script: (ScriptedTurn | ScriptedResponder)[] | ScriptedResponder;
  /** Characters per text delta. Default 16. */
  chunkSize?: number;
  /** Pause between events, milliseconds. Default 0. */
  delayMs?: number;
  /** How tool-call ids are made: `random` (default, UUIDs) or `sequential` (`call_1`, `call_2`, …). */
  ids?: "random" | "sequential";
  /** Default `scripted`. */
  modelId?: string;
}

/**
 * A model that replays a script: every run is the same, with no network and no key.
 *
 * @example
 * ```ts
 * const model = new ScriptedModel({
 *   script: [
 *     { toolCalls: [{ name: "get_weather", input: { city: "Oslo" } }] },
 *     ({ lastToolResults }) => ({ text: `It is ${lastToolResults[0]?.content.map((c) => (c.type === "text" ? c.text : "")).join("")}.` }),
 *   ],
 * });
 * ```
 */
export class ScriptedModel implements Model {
  modelId: string;
  /** How many calls were made. */
  calls = 0;
  readonly #script: ScriptedModelOptions["script"];
  readonly #chunk: number;
  readonly #delay: number;
  readonly #ids: "random" | "sequential";
  #seq = 0;
  readonly #userText: UserTextMemo = new WeakMap();
  /** The conversation of the previous call: its length, last message and JSON length. */
  #sent: { count: number; last: Message | undefined; chars: number } = { count: 0, last: undefined, chars: 2 };

  /** @param options - See {@link ScriptedModelOptions}. */
  constructor(options: ScriptedModelOptions) {
    this.#script = options.script;
    this.#chunk = Math.max(1, options.chunkSize ?? 16);
    this.#delay = options.delayMs ?? 0;
    this.#ids = options.ids ?? "random";
    this.modelId = options.modelId ?? "scripted";
  }

  async *stream(messages: Message[], options: ModelStreamOptions): AsyncGenerator<ModelStreamEvent> {
    const callIndex = this.calls++;
    const step = typeof this.#script === "function" ? this.#script : this.#script[callIndex];
    if (step === undefined) throw new UserError(`ScriptedModel: the script has no turn ${callIndex + 1}.`);
    const turn = typeof step === "function" ? await step(request(messages, options, callIndex, this.#userText)) : step;
    if (turn.error !== undefined) throw turn.error;
    let sent = 0;
    for (const event of this.#events(turn, messages, options)) {
      if (turn.cutAfterEvents !== undefined && sent >= turn.cutAfterEvents) return;
      if (options.signal?.aborted) return;
      if (this.#delay > 0) await sleep(this.#delay, options.signal);
      yield event;
      sent++;
    }
  }

  *#events(turn: ScriptedTurn, messages: Message[], options: ModelStreamOptions): Generator<ModelStreamEvent> {
    yield { type: "messageStart", role: "assistant" };
    let index = 0;
    if (turn.reasoning) {
      yield { type: "contentBlockStart", index, start: { type: "reasoning" } };
      for (const piece of chunks(turn.reasoning, this.#chunk))
        yield { type: "contentBlockDelta", index, delta: { type: "reasoning", text: piece } };
      yield { type: "contentBlockStop", index: index++ };
    }
    if (turn.text) {
      yield { type: "contentBlockStart", index, start: { type: "text" } };
      for (const piece of chunks(turn.text, this.#chunk))
        yield { type: "contentBlockDelta", index, delta: { type: "text", text: piece } };
      yield { type: "contentBlockStop", index: index++ };
    }
    for (const call of turn.toolCalls ?? []) {
      const toolUseId = call.id ?? this.#nextId();
      yield { type: "contentBlockStart", index, start: { type: "toolUse", toolUseId, name: call.name } };
      const json = call.rawInput ?? JSON.stringify(call.input ?? {});
      for (const piece of chunks(json, this.#chunk))
        yield { type: "contentBlockDelta", index, delta: { type: "toolUseInput", input: piece } };
      yield { type: "contentBlockStop", index: index++ };
    }
    yield { type: "messageStop", stopReason: turn.stopReason ?? (turn.toolCalls?.length ? "toolUse" : "endTurn") };
    yield { type: "metadata", usage: turn.usage ?? this.#usage(turn, messages, options) };
  }

  #usage(turn: ScriptedTurn, messages: Message[], options: ModelStreamOptions): Usage {
    const inputTokens = Math.ceil(((options.systemPrompt?.length ?? 0) + this.#inputChars(messages)) / 4);
    const outputTokens = Math.ceil(
      ((turn.text?.length ?? 0) + (turn.reasoning?.length ?? 0) + JSON.stringify(turn.toolCalls ?? []).length) / 4,
    );
    return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  }

  /**
   * JSON length of the conversation, counting only what was added since the previous call when the
   * previous conversation's last message is still in place: a tool loop then costs O(1) per call. A
   * message replaced further back (a cleared tool result) is counted as it was first sent.
   */
  #inputChars(messages: Message[]): number {
    const before = this.#sent;
    let chars: number;
    if (before.count > 0 && messages.length >= before.count && messages[before.count - 1] === before.last) {
      chars = before.chars;
      for (let i = before.count; i < messages.length; i++) chars += messageChars(messages[i] as Message) + 1;
    } else chars = transcriptChars(messages);
    this.#sent = { count: messages.length, last: messages.at(-1), chars };
    return chars;
  }

  #nextId(): string {
    return this.#ids === "sequential" ? `call_${++this.#seq}` : `call_${crypto.randomUUID()}`;
  }
}

function request(
  messages: Message[],
  options: ModelStreamOptions,
  callIndex: number,
  memo: UserTextMemo,
): ScriptedRequest {
  const last = messages.at(-1);
  const lastToolResults =
    last?.role === "user" ? last.content.filter((b): b is ToolResultBlock => b.type === "toolResult") : [];
  let lastUserText: string | undefined;
  return {
    messages,
    systemPrompt: options.systemPrompt,
    toolSpecs: options.toolSpecs,
    callIndex,
    lastToolResults,
    // Found only when a responder asks, and then from the messages seen at the previous call on.
    get lastUserText() {
      lastUserText ??= userTextUpTo(messages, memo);
      return lastUserText;
    },
  };
}

/**
 * The last user text as of a message (that message included), remembered per message object and per
 * model: a tool loop adds two messages per call, so finding it never walks the whole transcript again.
 */
type UserTextMemo = WeakMap<Message, string>;

function userTextUpTo(messages: Message[], userTextAsOf: UserTextMemo): string {
  let i = messages.length - 1;
  let found = "";
  for (; i >= 0; i--) {
    const m = messages[i] as Message;
    const known = userTextAsOf.get(m);
    if (known !== undefined) {
      found = known;
      break;
    }
    const text = m.role === "user" ? m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("") : "";
    if (text) {
      found = text;
      break;
    }
  }
  for (let j = Math.max(i, 0); j < messages.length; j++) userTextAsOf.set(messages[j] as Message, found);
  return found;
}

function* chunks(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    // The listener goes when the timer fires: one per event would pile up on a long stream's signal.
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
