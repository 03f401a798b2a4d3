/**
 * A model's stream assembled into one assistant message: blocks opened, filled and closed by index,
 * the stop reason checked against the content, call ids made unique, and what a cancelled stream had
 * said so far.
 *
 * @module
 */
import { ModelStreamError } from "../errors.js";
import type { ContentBlockDelta, ModelStopReason, ModelStreamEvent } from "./model.js";
import type { ContentBlock, Message } from "./messages/messages.js";
import { addUsage, type AgentMetrics } from "./metrics.js";
import { onAbort } from "./shared/abort-wait.js";

/** A model response. */
export interface ModelResponse {
  message: Message;
  stopReason: ModelStopReason;
}

type Open =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string; signature?: string; redacted?: string }
  | { kind: "toolUse"; toolUseId: string; name: string; json: string };

/** What the stream has produced so far: blocks still open by index, closed ones, the stop reason. */
interface Assembly {
  open: Map<number, Open>;
  done: { index: number; block: ContentBlock }[];
  stopReason: ModelStopReason | undefined;
}

/**
 * Consumes a model stream into one assistant message.
 * @param usedIds - Call ids the transcript already holds (read only when the response calls tools);
 *   a reused one gets a suffix. Default: none.
 * @throws ModelStreamError when the stream ends before `messageStop` or breaks the event order.
 */
export async function assembleResponse(
  stream: AsyncIterable<ModelStreamEvent>,
  onEvent: (event: ModelStreamEvent) => void,
  metrics: AgentMetrics,
  signal: AbortSignal | undefined,
  usedIds?: () => ReadonlySet<string>,
): Promise<(ModelResponse & { partial?: false }) | { partial: true; message: Message }> {
  const assembly: Assembly = { open: new Map(), done: [], stopReason: undefined };
  await consume(stream, signal, (event) => {
    onEvent(event);
    applyEvent(assembly, event, metrics);
  });
  if (signal?.aborted) return partialResponse(assembly);
  return completeResponse(assembly, usedIds);
}

/**
 * Reads the stream until it ends or the signal aborts, then releases it. Each step is a callback on the
 * iterator's promise, not an await on a promise of ours that an abort could also settle: that cost a
 * promise, its two resolvers and two extra microtask hops per event. A model whose stream ignores the
 * signal still does not keep a cancelled run waiting: the abort ends the read at once, and the run's
 * signal has one listener for all its streams ({@link onAbort}).
 */
function consume<T>(
  stream: AsyncIterable<T>,
  signal: AbortSignal | undefined,
  each: (event: T) => void,
): Promise<void> {
  const iterator = stream[Symbol.asyncIterator]();
  return new Promise<void>((resolve, reject) => {
    let over = false;
    let stop: (() => void) | undefined;
    const end = (exhausted: boolean, failed?: boolean, error?: unknown) => {
      if (over) return;
      over = true;
      stop?.();
      // Release the provider's stream (and its connection) when we stop early; a stream that
      // ignores the signal may never settle, so this is not awaited.
      if (!exhausted) iterator.return?.()?.then(undefined, () => undefined);
      failed ? reject(error) : resolve();
    };
    const fail = (error: unknown) => end(false, true, error);
    const step = (r: IteratorResult<T>) => {
      if (over) return;
      if (signal?.aborted) return end(false);
      if (r.done) return end(true);
      try {
        each(r.value);
      } catch (error) {
        return fail(error);
      }
      pull();
    };
    const pull = () => {
      let next: Promise<IteratorResult<T>>;
      try {
        next = iterator.next();
      } catch (error) {
        return fail(error);
      }
      if (signal?.aborted) {
        next.then(undefined, () => undefined);
        return end(false);
      }
      next.then(step, (error: unknown) => !over && fail(error));
    };
    if (signal) stop = onAbort(signal, () => end(false));
    pull();
  });
}

/** Applies one stream event to the assembly. */
function applyEvent(a: Assembly, event: ModelStreamEvent, metrics: AgentMetrics): void {
  switch (event.type) {
    case "messageStart":
      break;
    case "contentBlockStart": {
      const s = event.start;
      a.open.set(
        event.index,
        s.type === "toolUse"
          ? { kind: "toolUse", toolUseId: s.toolUseId, name: s.name, json: "" }
          : s.type === "reasoning"
            ? { kind: "reasoning", text: "" }
            : { kind: "text", text: "" },
      );
      break;
    }
    case "contentBlockDelta":
      applyDelta(a.open, event.index, event.delta);
      break;
    case "contentBlockStop": {
      const block = a.open.get(event.index);
      if (!block) break;
      a.open.delete(event.index);
      a.done.push({ index: event.index, block: close(block) });
      break;
    }
    case "messageStop":
      a.stopReason = event.stopReason;
      break;
    case "metadata":
      if (event.usage) addUsage(metrics.usage, event.usage);
      break;
    default: {
      const never: never = event;
      throw new ModelStreamError(`Unknown model event ${JSON.stringify(never)}.`);
    }
  }
}

/** Adds a delta to its open block (opening a text or reasoning block a provider did not start). */
function applyDelta(open: Map<number, Open>, index: number, d: ContentBlockDelta): void {
  let block = open.get(index);
  if (!block) {
    // Providers may omit a start for text/reasoning blocks; tool input needs its start.
    if (d.type === "toolUseInput")
      throw new ModelStreamError(`Tool input delta for block ${index} arrived before its start.`);
    block = d.type === "text" ? { kind: "text", text: "" } : { kind: "reasoning", text: "" };
    open.set(index, block);
  }
  if (d.type === "text" && block.kind === "text") block.text += d.text;
  else if (d.type === "toolUseInput" && block.kind === "toolUse") block.json += d.input;
  else if (d.type === "reasoning" && block.kind === "reasoning") {
    if (d.text) block.text += d.text;
    if (d.signature) block.signature = (block.signature ?? "") + d.signature;
    if (d.redacted) block.redacted = (block.redacted ?? "") + d.redacted;
  } else throw new ModelStreamError(`A ${d.type} delta does not fit content block ${index} (${block.kind}).`);
}

/** What a cancelled stream had said so far, but never a tool call that will not get a result. */
function partialResponse(a: Assembly): { partial: true; message: Message } {
  const text = a.done.map((d) => d.block).filter((b) => b.type === "text" || b.type === "reasoning");
  for (const b of a.open.values()) if (b.kind === "text" && b.text) text.push({ type: "text", text: b.text });
  return { partial: true, message: { role: "assistant", content: text } };
}

/** The finished message: blocks in order, the stop reason checked against the content, call ids unique. */
function completeResponse(a: Assembly, usedIds: (() => ReadonlySet<string>) | undefined): ModelResponse {
  for (const b of a.open.values())
    if (b.kind === "toolUse")
      throw new ModelStreamError(`The model's stream ended in the middle of a call to tool "${b.name}".`);
  let stopReason = a.stopReason;
  if (stopReason === undefined) throw new ModelStreamError("The model's stream ended before its stop event.");
  const done = a.done;
  for (const [index, block] of a.open) done.push({ index, block: close(block) });
  // Blocks close in index order but for a provider that interleaves them: sorted only then.
  if (done.some((d, i) => i > 0 && (done[i - 1] as (typeof done)[number]).index > d.index))
    done.sort((x, y) => x.index - y.index);
  let content: ContentBlock[] = [];
  let hasTools = false;
  for (const { block } of done) {
    if (block.type === "text" && block.text === "") continue;
    if (block.type === "toolUse") hasTools = true;
    content.push(block);
  }
  // Some servers finish a tool-calling turn with "stop"; trust the content over the label.
  if (hasTools && stopReason === "endTurn") stopReason = "toolUse";
  if (!hasTools && stopReason === "toolUse") stopReason = "endTurn";
  // A turn cut short (maxTokens, contentFiltered …) ends the run: its calls would never get results,
  // and a toolUse without its toolResult breaks the transcript (and the next provider request).
  if (hasTools && stopReason !== "toolUse") content = content.filter((b) => b.type !== "toolUse");
  if (hasTools) uniqueCallIds(content, usedIds ? usedIds() : new Set());
  return { message: { role: "assistant", content }, stopReason };
}

/**
 * Ids identify calls, their results, their interrupts and their ledger entries: a server that
 * repeats one in a response, or reuses one of an earlier turn (`used`), would make two calls share
 * an approval or a recorded result. Repeats get a suffix (the transcript sends it back as is).
 */
function uniqueCallIds(content: ContentBlock[], used: ReadonlySet<string>): void {
  const seen = new Set<string>();
  for (const b of content) {
    if (b.type !== "toolUse") continue;
    let id = b.toolUseId;
    for (let n = 2; seen.has(id) || used.has(id); n++) id = `${b.toolUseId}_${n}`;
    b.toolUseId = id;
    seen.add(id);
  }
}

function close(block: Open): ContentBlock {
  if (block.kind === "text") return { type: "text", text: block.text };
  if (block.kind === "reasoning") {
    const r: ContentBlock = { type: "reasoning", text: block.text };
    if (block.signature) r.signature = block.signature;
    if (block.redacted) r.redacted = block.redacted;
    return r;
  }
  let input: unknown;
  const raw = block.json.trim();
  try {
    input = raw === "" ? {} : JSON.parse(raw);
  } catch {
    // Kept as the raw string: the tool step answers it with an error the model can read.
    input = block.json;
  }
  return { type: "toolUse", toolUseId: block.toolUseId, name: block.name, input };
}
