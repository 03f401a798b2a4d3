/**
 * What the transcript shows, as blocks (see ./transcript.ts): the person's messages, the
 * assistant's replies (markdown, suggestion buttons, copy), its reasoning (collapsed), one row per
 * tool call — a card with the action in words while it waits for approval — and the marks a run
 * leaves: "thinking…", "stopped", an error with Retry, and Regenerate after the last reply.
 */
import type { Message as AguiMessage, Interrupt as AguiInterrupt } from "@ag-ui/core";
import { OUTCOME_UNKNOWN } from "kaboo-workflows";
import { actionWords, outcomeDecision } from "./actions.js";
import { fillCard, lapsed } from "./approval-card.js";
import { fourEyesStatus } from "./four-eyes.js";
import { persona } from "./persona.js";
import { TOOL_LABELS } from "./bank.js";
import { markdownReady, showReply } from "./markdown-loader.js";
import type { Block } from "./transcript.js";

/** A mark left where a run was stopped, or where one failed (`kind: "error"`, with why). */
export interface StopMark {
  /** The message it follows. */
  after: string;
  text: string;
  kind?: "stop" | "error";
}

/** What the view needs besides the messages. */
export interface ViewState {
  /** Tool calls waiting for the person's approval, by tool call id. */
  awaiting: ReadonlyMap<string, AguiInterrupt>;
  /** Open questions answered on this page, waiting for the others to be answered too. */
  answered: ReadonlySet<string>;
  running: boolean;
  marks: readonly StopMark[];
  /** The rule (grant) that let a call run without asking, if one did. */
  ruleFor(tool: string, args: Record<string, unknown>, callId: string): string | undefined;
  isOpen(key: string): boolean;
}

type ToolCall = { id: string; function: { name: string; arguments: string } };

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(text: string, action: string, className = "ghost small"): HTMLButtonElement {
  const b = el("button", className, text);
  b.type = "button";
  b.dataset["action"] = action;
  return b;
}

/** The text of a message's content (string or text parts). */
export function contentText(m: AguiMessage): string {
  const c = (m as { content?: unknown }).content;
  if (typeof c === "string") return c;
  if (Array.isArray(c))
    return c
      .map((p) => (typeof p === "object" && p && "text" in p ? String((p as { text: unknown }).text) : ""))
      .join("");
  return "";
}

// The suggestions line starts a paragraph; while it streams in, only its finished prompts show.
const TRY_LINE = /(?:^|\n\n)Try: /;

/** Splits a reply into its text and its suggestions (the last line "Try: “…” · “…”"). */
export function splitSuggestions(text: string): { body: string; prompts: string[] } {
  const m = TRY_LINE.exec(text);
  if (!m) return { body: text, prompts: [] };
  return { body: text.slice(0, m.index), prompts: [...text.slice(m.index).matchAll(/“([^”]+)”/g)].map((x) => x[1]!) };
}

function fillReply(bubble: HTMLElement, text: string, streaming: boolean): void {
  const { body, prompts } = splitSuggestions(text);
  const content = bubble.querySelector<HTMLElement>(".content")!;
  showReply(content, body, !streaming);
  const chips = bubble.querySelector<HTMLElement>(".suggestions")!;
  // Written only when it changes: setting `hidden` to what it is still rewrites the attribute.
  if (chips.hidden !== (prompts.length === 0)) chips.hidden = prompts.length === 0;
  if (chips.childElementCount === prompts.length) return;
  chips.replaceChildren(
    ...prompts.map((p) => {
      const b = el("button", "chip", p);
      b.type = "button";
      b.dataset["prompt"] = p;
      return b;
    }),
  );
}

function replyBlock(m: AguiMessage, text: string, streaming: boolean): Block {
  return {
    key: `a:${m.id}`,
    sig: `${streaming}:${markdownReady()}:${text}`,
    build() {
      const bubble = el("div", "msg assistant");
      bubble.dataset["id"] = m.id;
      const copy = button("Copy", "copy");
      copy.setAttribute("aria-label", "Copy this reply");
      const foot = el("div", "msg-actions");
      foot.append(copy);
      bubble.append(el("div", "content"), el("div", "suggestions"), foot);
      fillReply(bubble, text, streaming);
      return bubble;
    },
    patch(bubble) {
      fillReply(bubble, text, streaming);
      return true;
    },
  };
}

function reasoningBlock(m: AguiMessage, text: string, view: ViewState): Block {
  return {
    key: `r:${m.id}`,
    sig: text,
    build() {
      const d = el("details", "reasoning");
      d.dataset["key"] = m.id;
      d.open = view.isOpen(m.id);
      d.append(el("summary", undefined, "Reasoning"), el("p", undefined, text));
      return d;
    },
    patch(d) {
      d.querySelector("p")!.textContent = text;
      return true;
    },
  };
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A failed call in words for the person (the text meant for the model stays out of the chat). */
/** What a call that did not run (or did not finish) is, by its result. */
type NotRun = "declined" | "expired" | "cancelled" | "stopped" | "invalid" | "error";

function notRun(text: string): { status: NotRun; badge: string; note: string } {
  if (outcomeDecision(text) === "cancelled")
    return {
      status: "cancelled",
      badge: "Cancelled",
      note: "You chose not to run it again. Whether it went through before the page closed is not known; your statement will show it.",
    };
  if (/denied/i.test(text))
    return { status: "declined", badge: "Declined", note: "You declined this, so it did not run." };
  if (/expired/i.test(text))
    return {
      status: "expired",
      badge: "Expired",
      note: "The approval expired before it was answered, so it did not run.",
    };
  if (/stopped/i.test(text)) return { status: "stopped", badge: "Stopped", note: "Stopped before it ran." };
  if (/edited arguments/i.test(text))
    return { status: "invalid", badge: "Not run", note: "The edited details were not valid, so it did not run." };
  return { status: "error", badge: "Failed", note: text.split("\n")[0]!.slice(0, 200) };
}

function toolBlock(call: ToolCall, result: AguiMessage | undefined, view: ViewState): Block {
  const name = call.function.name;
  const args = parseArgs(call.function.arguments);
  const text = result ? contentText(result) : "";
  const failed = Boolean(result && (result as { error?: string }).error);
  const failure = result && failed ? notRun(text) : undefined;
  // "It went through" is the person's word, not the bank's booking: not a green Done.
  const status = result
    ? (failure?.status ?? (outcomeDecision(text) === "went-through" ? "confirmed" : "done"))
    : view.awaiting.has(call.id)
      ? "awaiting"
      : view.running
        ? "running"
        : "stopped";
  const rule = status === "done" ? view.ruleFor(name, args, call.id) : undefined;
  const interrupt = view.awaiting.get(call.id);
  const expired = interrupt !== undefined && lapsed(interrupt);
  const answered = interrupt !== undefined && view.answered.has(interrupt.id);
  return {
    key: `t:${call.id}`,
    sig: JSON.stringify([
      status,
      call.function.arguments,
      text,
      rule,
      interrupt?.id,
      expired,
      answered,
      view.isOpen(call.id),
      persona(),
    ]),
    build() {
      const row = el("div", status === "awaiting" ? "tool-row approval-card" : "tool-row");
      Object.assign(row.dataset, { tool: name, status, callId: call.id });
      const words = actionWords(name, args);
      const lost = interrupt?.reason === OUTCOME_UNKNOWN;
      const label = {
        done: "Done",
        confirmed: "You said it went through",
        declined: "Declined",
        expired: "Expired",
        cancelled: "Cancelled",
        invalid: "Not run",
        error: failure?.badge ?? "Not run",
        awaiting: answered
          ? "Answered"
          : expired
            ? "Expired"
            : lost
              ? "Outcome unknown"
              : ((interrupt && fourEyesStatus(interrupt)) ?? "Needs your approval"),
        running: "Running…",
        stopped: "Stopped",
      };
      const head = el("div", "tool-head");
      head.append(
        el("span", "tool-icon"),
        el("span", "tool-label", TOOL_LABELS[name] ?? name),
        el("span", "tool-status", label[status]),
      );
      row.append(head);
      if (status === "awaiting" && interrupt && answered) {
        row.append(
          el("p", "card-headline", words.headline),
          el("p", "card-note", "Answered. It goes ahead once you answer the rest."),
        );
        return row;
      }
      if (status === "awaiting" && interrupt) {
        fillCard(row, interrupt, name, args);
        return row;
      }
      const argsEl = el("div", "tool-args", words.facts.map(([k, v]) => `${k}: ${v}`).join(" · ") || "no arguments");
      row.append(argsEl);
      if (rule) row.append(el("p", "rule-mark", `✓ Approved by your rule: ${rule}`));
      if (failure) row.append(el("p", "tool-result", failure.note));
      else if (outcomeDecision(text) === "went-through")
        row.append(
          el(
            "p",
            "tool-result",
            "You said this went through, so it was not run again. The bank did not confirm it here; your statement shows whether it was booked.",
          ),
        );
      else if (result) row.append(resultView(call.id, text, view));
      return row;
    },
  };
}

function resultView(key: string, text: string, view: ViewState): HTMLElement {
  if (text.length <= 280) return el("div", "tool-result", text);
  const d = el("details", "tool-result");
  d.dataset["key"] = key;
  d.open = view.isOpen(key);
  d.append(
    el("summary", undefined, `${text.slice(0, 120)}… (${text.length.toLocaleString()} characters)`),
    el("pre", undefined, text),
  );
  return d;
}

function note(key: string, className: string, text: string, action?: [label: string, action: string]): Block {
  return {
    key,
    sig: text + (action?.[0] ?? ""),
    build() {
      const n = el("div", className);
      if (className.includes("run-error")) n.setAttribute("role", "alert");
      n.append(el("span", undefined, text));
      if (action) n.append(button(action[0], action[1]));
      return n;
    },
  };
}

function retryIfLast(m: AguiMessage, messages: readonly AguiMessage[], view: ViewState): [[string, string]] | [] {
  return m === messages.at(-1) && !view.running ? [["↻ Retry", "retry"]] : [];
}

/**
 * Whether the replies to the last question can be asked again. Not when they hold a tool call: the
 * thread's record is the authority (a run that drops a call from it is refused), and a payment that
 * ran must never disappear from the conversation.
 */
export function canRegenerate(messages: readonly AguiMessage[]): boolean {
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  if (lastUser < 0) return false;
  return !messages
    .slice(lastUser + 1)
    .some((m) => m.role === "tool" || ((m as { toolCalls?: unknown[] }).toolCalls?.length ?? 0) > 0);
}

/** The blocks of a conversation. */
export function transcriptBlocks(messages: readonly AguiMessage[], view: ViewState): Block[] {
  const results = new Map<string, AguiMessage>();
  for (const m of messages) if (m.role === "tool") results.set((m as { toolCallId: string }).toolCallId, m);
  const blocks: Block[] = [];
  let waitingForModel = false;
  for (const m of messages) {
    const text = contentText(m);
    if (m.role === "user" && text) {
      blocks.push(note(`u:${m.id}`, "msg user", text));
      waitingForModel = true;
    } else if (m.role === "reasoning") {
      blocks.push(reasoningBlock(m, text, view));
      waitingForModel = false;
    } else if (m.role === "assistant") {
      if (text) blocks.push(replyBlock(m, text, view.running && m === messages.at(-1)));
      const calls = (m as { toolCalls?: ToolCall[] }).toolCalls ?? [];
      for (const call of calls) blocks.push(toolBlock(call, results.get(call.id), view));
      waitingForModel = calls.length > 0 && calls.every((c) => results.has(c.id));
      if (text && !calls.length) waitingForModel = false;
    }
    for (const mark of view.marks) {
      if (mark.after !== m.id) continue;
      if (mark.kind === "error")
        // Each failed answer keeps its error where it happened; only the last one can be retried.
        blocks.push(
          note(
            `e:${m.id}`,
            "run-mark run-error",
            `Something went wrong: ${mark.text}`,
            ...retryIfLast(m, messages, view),
          ),
        );
      else
        blocks.push(
          note(
            `s:${m.id}`,
            "run-mark stopped",
            mark.text,
            ...(canRegenerate(messages) ? [["↻ Retry", "regenerate"] as [string, string]] : []),
          ),
        );
    }
  }
  if (view.running && waitingForModel) blocks.push(note("thinking", "thinking", "Thinking…"));
  const last = messages.at(-1);
  if (
    !view.running &&
    !view.awaiting.size &&
    last?.role === "assistant" &&
    !view.marks.some((k) => k.after === last.id) &&
    canRegenerate(messages)
  )
    blocks.push(note("turn-actions", "turn-actions", "", ["↻ Regenerate", "regenerate"]));
  return blocks;
}
