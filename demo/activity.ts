/**
 * The side panels fed by hooks: the context meter (ContextHook reports) and the activity log (the
 * EventPublisher's stream), both per conversation. The log is kept in localStorage, so a reload
 * shows what happened before it; a tool call is one row that changes as the call goes (requested →
 * finished, or declined / expired — a call that never ran is never shown as started).
 */
import type { Message as AguiMessage } from "@ag-ui/core";
import { OUTCOME_UNKNOWN } from "kaboo-workflows";
import type { ContextReport, StreamEvent } from "kaboo-workflows/hooks";
import { actionWords } from "./actions.js";
import type { TraceView } from "./trace-view.js";

const MAX_EVENTS = 200;
const KEY = "kaboo-demo:activity:";

/** The part of an event the log shows and keeps. */
type Logged = Pick<StreamEvent, "type" | "timestamp" | "data">;

const str = (d: Logged["data"], k: string) =>
  typeof d[k] === "string" || typeof d[k] === "number" ? String(d[k]) : "";

const RUN_ENDS: Record<string, string> = {
  endTurn: "Run complete",
  cancelled: "Run stopped",
  interrupt: "Paused for your approval",
};

/** A requested call in words, as the approval dialog says it: "Transfer · To: Bob · Amount: €5.00". */
function requested(label: string, tool: string, input: unknown): string {
  const args = input !== null && typeof input === "object" && !Array.isArray(input) ? input : {};
  const facts = actionWords(tool, args as Record<string, unknown>).facts.map(([k, v]) => `${k}: ${v}`);
  return [label, ...facts].join(" · ");
}

/** The row's title, detail and outcome (for its colour). */
function describe(e: Logged): { title: string; detail: string; outcome: string } {
  const d = e.data;
  const label = str(d, "tool_label") || str(d, "tool_name");
  switch (e.type) {
    case "agent_start":
      return { title: "Run started", detail: "", outcome: "info" };
    case "tool_start":
      return {
        title: "Tool requested",
        detail: requested(label, str(d, "tool_name"), d["tool_input"]),
        outcome: "info",
      };
    case "tool_end": {
      if (str(d, "status") === "success")
        return /person confirmed that the call/i.test(str(d, "tool_result"))
          ? { title: "You said it went through", detail: label, outcome: "ok" }
          : { title: "Tool finished", detail: label, outcome: "ok" };
      const why = `${str(d, "error")} ${str(d, "tool_result")}`;
      if (/chose not to run the call/i.test(why)) return { title: "Cancelled by you", detail: label, outcome: "warn" };
      if (/denied/i.test(why)) return { title: "Declined, not run", detail: label, outcome: "warn" };
      if (/expired/i.test(why)) return { title: "Expired, not run", detail: label, outcome: "warn" };
      if (/stopped/i.test(why)) return { title: "Stopped, not run", detail: label, outcome: "warn" };
      return { title: "Tool failed", detail: `${label}: ${why.trim().split("\n")[0]}`, outcome: "bad" };
    }
    case "interrupt": {
      const reason = d["reason"] as { message?: unknown } | undefined;
      return {
        title: str(d, "name") === OUTCOME_UNKNOWN ? "Outcome unknown, asking you" : "Waiting for approval",
        detail: typeof reason?.message === "string" ? reason.message : str(d, "name"),
        outcome: "warn",
      };
    }
    case "agent_complete": {
      const reason = str(d, "stop_reason");
      const ms = str(d, "duration_ms");
      return {
        title: RUN_ENDS[reason] ?? `Run ended (${reason})`,
        detail: ms ? `${ms} ms` : "",
        outcome: reason === "cancelled" || reason === "interrupt" ? "warn" : reason === "endTurn" ? "ok" : "info",
      };
    }
    case "error":
      return { title: "Model error", detail: str(d, "text") || str(d, "exception_type"), outcome: "bad" };
    default:
      return { title: e.type, detail: "", outcome: "info" };
  }
}

function keep(e: StreamEvent): Logged {
  const data: Logged["data"] = {};
  for (const k of [
    "tool_label",
    "tool_name",
    "tool_use_id",
    "tool_input",
    "status",
    "error",
    "reason",
    "stop_reason",
    "duration_ms",
    "text",
    "exception_type",
    "thread_id",
  ])
    if (e.data[k] !== undefined) data[k] = e.data[k];
  if (typeof e.data["tool_result"] === "string") data["tool_result"] = e.data["tool_result"].slice(0, 300);
  return { type: e.type, timestamp: e.timestamp, data };
}

function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

/** Keeps and shows the hook-fed panels. */
export class ActivityPanels {
  readonly #reports = new Map<string, ContextReport>();
  readonly #list: HTMLOListElement;
  #thread = "";
  /** The Trace view, once opened (its code and the tracing SDK load then, or with the first run). */
  #trace: TraceView | undefined;

  constructor() {
    this.#list = document.querySelector<HTMLOListElement>("#events")!;
    document.querySelector("#clear-log")!.addEventListener("click", () => {
      localStorage.removeItem(KEY + this.#thread);
      this.#list.replaceChildren();
    });
    const toggle = document.querySelector<HTMLButtonElement>("#show-trace")!;
    toggle.addEventListener("click", () => void this.#toggleTrace(toggle));
  }

  /** Switches between the log and the Trace view (the latest runs as a waterfall of their spans). */
  async #toggleTrace(toggle: HTMLButtonElement): Promise<void> {
    const on = toggle.getAttribute("aria-pressed") !== "true";
    toggle.setAttribute("aria-pressed", String(on));
    const view = document.querySelector<HTMLElement>("#trace")!;
    this.#list.hidden = on;
    document.querySelector<HTMLButtonElement>("#clear-log")!.hidden = on;
    view.hidden = !on;
    if (!on) return this.#trace?.hide();
    if (!this.#trace) {
      const { TraceView } = await import("./trace-view.js");
      this.#trace ??= new TraceView(view);
    }
    if (toggle.getAttribute("aria-pressed") === "true") this.#trace.show(this.#thread);
  }

  /** Shows another conversation's panels. */
  showThread(threadId: string, messages: readonly AguiMessage[]): void {
    this.#thread = threadId;
    this.#list.replaceChildren();
    if (document.querySelector("#show-trace")?.getAttribute("aria-pressed") === "true") this.#trace?.show(threadId);
    for (const e of this.#read(threadId)) this.#show(e);
    this.updateContext(threadId, messages);
  }

  /** An EventPublisher event (any conversation). */
  add(event: StreamEvent): void {
    const threadId = str(event.data, "thread_id");
    const logged = keep(event);
    const list = [...this.#read(threadId), logged].slice(-MAX_EVENTS);
    localStorage.setItem(KEY + threadId, JSON.stringify(list));
    if (threadId !== this.#thread) return;
    this.#show(logged);
    while (this.#list.childElementCount > MAX_EVENTS) this.#list.firstElementChild?.remove();
    this.#list.lastElementChild?.scrollIntoView({ block: "nearest" });
  }

  /** Forgets a conversation's log (it was deleted). */
  forget(threadId: string): void {
    localStorage.removeItem(KEY + threadId);
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
    const value = Math.min(meter.max, tokens);
    // Each piece is written only when it changes (this runs on every frame of a streamed answer).
    if (meter.value !== value) meter.value = value;
    setText(
      document.querySelector("#context-text")!,
      !r && messages.length === 0
        ? "Nothing sent to the model yet"
        : `~${tokens.toLocaleString()} tokens ${r ? "sent at the last model call" : "in this conversation (estimate)"}`,
    );
    const cleared = document.querySelector<HTMLElement>("#context-cleared")!;
    if (cleared.dataset["cleared"] !== String(r?.cleared ?? 0)) cleared.dataset["cleared"] = String(r?.cleared ?? 0);
    setText(
      cleared,
      r && r.cleared > 0
        ? `${r.cleared} old tool result${r.cleared === 1 ? "" : "s"} cleared · ~${r.tokensSaved.toLocaleString()} tokens saved`
        : "No tool results cleared yet. Long results are replaced by a short note once the context passes 1,200 tokens.",
    );
  }

  #read(threadId: string): Logged[] {
    try {
      const value: unknown = JSON.parse(localStorage.getItem(KEY + threadId) ?? "[]");
      return Array.isArray(value) ? (value as Logged[]).filter((e) => e && typeof e.type === "string" && e.data) : [];
    } catch {
      return [];
    }
  }

  /** Adds a row, or updates the row of the same tool call. */
  #show(e: Logged): void {
    const callId = str(e.data, "tool_use_id");
    const existing = callId
      ? this.#list.querySelector<HTMLLIElement>(`li[data-call-id="${CSS.escape(callId)}"]`)
      : null;
    const li = existing ?? document.createElement("li");
    if (callId) li.dataset["callId"] = callId;
    li.dataset["type"] = e.type;
    const { title, detail, outcome } = describe(e);
    li.dataset["outcome"] = outcome;
    const time = document.createElement("time");
    time.dateTime = new Date(e.timestamp).toISOString();
    time.textContent = new Date(e.timestamp).toLocaleTimeString([], {
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    const kind = Object.assign(document.createElement("span"), { className: "kind", textContent: title });
    const text = Object.assign(document.createElement("span"), { className: "detail", textContent: detail });
    li.replaceChildren(time, kind, text);
    if (existing) this.#list.append(existing);
    else this.#list.append(li);
  }
}
