/**
 * The side panels fed by hooks: the context meter (ContextHook reports) and the activity log
 * (the EventPublisher's stream), both per conversation.
 */
import type { Message as AguiMessage } from "@ag-ui/core";
import type { ContextReport, StreamEvent } from "kaboo-workflows/hooks";

const MAX_EVENTS = 200;

const TITLES: Record<string, string> = {
  agent_start: "Run started",
  tool_start: "Tool started",
  tool_end: "Tool finished",
  interrupt: "Waiting for approval",
  agent_complete: "Run complete",
  error: "Error",
};

function detail(e: StreamEvent): string {
  const d = e.data;
  const pick = (k: string) => (typeof d[k] === "string" || typeof d[k] === "number" ? String(d[k]) : "");
  switch (e.type) {
    case "tool_start":
      return `${pick("tool_label") || pick("tool_name")} ${JSON.stringify(d["tool_input"] ?? {})}`;
    case "tool_end":
      return `${pick("tool_label") || pick("tool_name")} → ${pick("status")}${d["error"] ? `: ${pick("error")}` : ""}`;
    case "interrupt": {
      const reason = d["reason"] as { message?: unknown } | undefined;
      return typeof reason?.message === "string" ? reason.message : pick("name");
    }
    case "agent_complete":
      return `${pick("stop_reason")}${pick("duration_ms") ? ` · ${pick("duration_ms")} ms` : ""}`;
    case "error":
      return pick("text") || pick("exception_type");
    default:
      return "";
  }
}

/** Keeps and shows the hook-fed panels. */
export class ActivityPanels {
  readonly #events = new Map<string, StreamEvent[]>();
  readonly #reports = new Map<string, ContextReport>();
  readonly #list: HTMLOListElement;
  #thread = "";

  constructor() {
    this.#list = document.querySelector<HTMLOListElement>("#events")!;
    document.querySelector("#clear-log")!.addEventListener("click", () => {
      this.#events.set(this.#thread, []);
      this.#list.replaceChildren();
    });
  }

  /** Shows another conversation's panels. */
  showThread(threadId: string, messages: readonly AguiMessage[]): void {
    this.#thread = threadId;
    this.#list.replaceChildren(...(this.#events.get(threadId) ?? []).map((e) => this.#item(e)));
    this.updateContext(threadId, messages);
  }

  /** An EventPublisher event (any conversation). */
  add(event: StreamEvent): void {
    const threadId = typeof event.data["thread_id"] === "string" ? event.data["thread_id"] : "";
    const list = this.#events.get(threadId) ?? [];
    list.push(event);
    if (list.length > MAX_EVENTS) list.splice(0, list.length - MAX_EVENTS);
    this.#events.set(threadId, list);
    if (threadId !== this.#thread) return;
    this.#list.append(this.#item(event));
    while (this.#list.childElementCount > MAX_EVENTS) this.#list.firstElementChild?.remove();
    this.#list.lastElementChild?.scrollIntoView({ block: "nearest" });
  }

  /** A ContextHook report (any conversation). */
  report(threadId: string, report: ContextReport): void {
    this.#reports.set(threadId, report);
    if (threadId === this.#thread) this.updateContext(threadId, []);
  }

  /** Redraws the meter: the last report, or an estimate from the transcript after a reload. */
  updateContext(threadId: string, messages: readonly AguiMessage[]): void {
    if (threadId !== this.#thread) return;
    const r = this.#reports.get(threadId);
    const tokens = r?.inputTokens ?? Math.ceil(JSON.stringify(messages).length / 4);
    const meter = document.querySelector<HTMLMeterElement>("#context-meter")!;
    meter.value = Math.min(meter.max, tokens);
    document.querySelector("#context-text")!.textContent =
      !r && messages.length === 0
        ? "Nothing sent to the model yet"
        : `~${tokens.toLocaleString()} tokens ${r ? "sent at the last model call" : "in this conversation (estimate)"}`;
    const cleared = document.querySelector<HTMLElement>("#context-cleared")!;
    cleared.dataset["cleared"] = String(r?.cleared ?? 0);
    if (r && r.cleared > 0)
      cleared.textContent = `${r.cleared} old tool result${r.cleared === 1 ? "" : "s"} cleared · ~${r.tokensSaved.toLocaleString()} tokens saved`;
    else
      cleared.textContent =
        "No tool results cleared yet. Long results are replaced by a short note once the context passes 1,200 tokens.";
  }

  #item(e: StreamEvent): HTMLLIElement {
    const li = document.createElement("li");
    li.dataset["type"] = e.type;
    const time = document.createElement("time");
    time.dateTime = new Date(e.timestamp).toISOString();
    time.textContent = new Date(e.timestamp).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = TITLES[e.type] ?? e.type;
    const text = document.createElement("span");
    text.className = "detail";
    text.textContent = detail(e);
    li.append(time, kind, text);
    return li;
  }
}
