/**
 * Renders a conversation (AG-UI messages) as chat bubbles: the person's messages, the
 * assistant's streamed text, its reasoning (collapsed), and one row per tool call with its
 * label, arguments and result.
 */
import type { Message as AguiMessage } from "@ag-ui/core";
import { TOOL_LABELS } from "./bank.js";

/** What the view needs besides the messages. */
export interface ViewState {
  /** Tool calls waiting for the person's approval. */
  awaiting: ReadonlySet<string>;
  /** Whether a run is in progress (calls without results are "running"). */
  running: boolean;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Paragraphs with **bold**, *emphasis* and `code`, built as DOM (never innerHTML). */
function richText(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  for (const para of text.split(/\n{2,}/)) {
    const p = el("p");
    for (const [i, line] of para.split("\n").entries()) {
      if (i > 0) p.append(el("br"));
      for (const part of line.split(/(\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`)/)) {
        if (part.startsWith("**") && part.endsWith("**") && part.length > 4) p.append(el("strong", undefined, part.slice(2, -2)));
        else if (part.startsWith("*") && part.endsWith("*") && part.length > 2) p.append(el("em", undefined, part.slice(1, -1)));
        else if (part.startsWith("`") && part.endsWith("`") && part.length > 2)
          p.append(el("code", undefined, part.slice(1, -1)));
        else if (part) p.append(part);
      }
    }
    frag.append(p);
  }
  return frag;
}

function contentText(m: AguiMessage): string {
  const c = (m as { content?: unknown }).content;
  if (typeof c === "string") return c;
  if (Array.isArray(c))
    return c.map((p) => (typeof p === "object" && p && "text" in p ? String((p as { text: unknown }).text) : "")).join("");
  return "";
}

function argsSummary(raw: string): { text: string; parsed: Record<string, unknown> | undefined } {
  try {
    const parsed = JSON.parse(raw || "{}") as Record<string, unknown>;
    const text = Object.entries(parsed)
      .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" · ");
    return { text: text || "no arguments", parsed };
  } catch {
    return { text: raw, parsed: undefined };
  }
}

function toolRow(
  call: { id: string; function: { name: string; arguments: string } },
  result: AguiMessage | undefined,
  view: ViewState,
): HTMLElement {
  const status = result
    ? (result as { error?: string }).error
      ? "error"
      : "done"
    : view.awaiting.has(call.id)
      ? "awaiting"
      : view.running
        ? "running"
        : "stopped";
  const row = el("div", "tool-row");
  row.dataset["tool"] = call.function.name;
  row.dataset["status"] = status;
  row.dataset["callId"] = call.id;
  const head = el("div", "tool-head");
  const badge = el(
    "span",
    "tool-status",
    { done: "Done", error: "Not run", awaiting: "Needs your approval", running: "Running…", stopped: "Stopped" }[status],
  );
  head.append(
    el("span", "tool-icon"),
    el("span", "tool-label", TOOL_LABELS[call.function.name] ?? call.function.name),
    el("code", "tool-name", call.function.name),
    badge,
  );
  const args = argsSummary(call.function.arguments);
  const argsEl = el("div", "tool-args", args.text);
  argsEl.title = call.function.arguments;
  row.append(head, argsEl);
  if (result) {
    const text = contentText(result);
    const out = el(text.length > 280 ? "details" : "div", "tool-result");
    if (out instanceof HTMLDetailsElement)
      out.append(
        el("summary", undefined, `${text.slice(0, 120)}… (${text.length.toLocaleString()} characters)`),
        el("pre", undefined, text),
      );
    else out.textContent = text;
    row.append(out);
  }
  return row;
}

/**
 * Draws the whole conversation into `container`, keeping open reasoning panels open and the
 * scroll pinned to the bottom when it was there.
 */
export function renderTranscript(container: HTMLElement, messages: readonly AguiMessage[], view: ViewState): void {
  const pinned = container.scrollHeight - container.scrollTop - container.clientHeight < 80;
  const open = new Set(
    [...container.querySelectorAll<HTMLDetailsElement>("details[open][data-key]")].map((d) => d.dataset["key"]),
  );
  const results = new Map<string, AguiMessage>();
  for (const m of messages) if (m.role === "tool") results.set((m as { toolCallId: string }).toolCallId, m);
  const nodes: HTMLElement[] = [];
  for (const m of messages) {
    if (m.role === "user") {
      const text = contentText(m);
      if (!text) continue;
      const b = el("div", "msg user");
      b.append(richText(text));
      nodes.push(b);
    } else if (m.role === "reasoning") {
      const d = el("details", "reasoning");
      d.dataset["key"] = m.id;
      d.open = open.has(m.id);
      d.append(el("summary", undefined, "Reasoning"), el("p", undefined, contentText(m)));
      nodes.push(d);
    } else if (m.role === "assistant") {
      const text = contentText(m);
      if (text) {
        const b = el("div", "msg assistant");
        b.dataset["id"] = m.id;
        b.append(richText(text));
        nodes.push(b);
      }
      for (const call of (m as { toolCalls?: { id: string; function: { name: string; arguments: string } }[] }).toolCalls ?? []) {
        nodes.push(toolRow(call, results.get(call.id), view));
      }
    }
  }
  container.replaceChildren(...nodes);
  if (pinned) container.scrollTop = container.scrollHeight;
}
