/**
 * The activity panel's Trace view: the conversation's latest runs as a waterfall, drawn from the spans
 * `TracingHook` made (./tracing.ts). One row per span, indented under its parent, a bar placed by its
 * start and sized by its duration within the run, the numbers in words beside it, and for a tool call
 * what the gate decided and what the ledger answered. Loaded when the view is first opened (its styles:
 * ./trace.css).
 */
import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { GEN_AI, KABOO } from "kaboo-workflows/otel";
import { personaLabel } from "./persona.js";
import { finishedSpans, onSpanEnd } from "./tracing.js";

/** How many of the conversation's runs the view draws (the latest). */
const MAX_RUNS = 5;

const msOf = (t: HrTime) => t[0] * 1000 + t[1] / 1e6;
const msText = (ms: number) => `${ms < 10 ? ms.toFixed(1) : Math.round(ms).toLocaleString()} ms`;
const attr = (s: ReadableSpan, k: string) => s.attributes[k];
const text = (s: ReadableSpan, k: string) => {
  const v = attr(s, k);
  return typeof v === "string" || typeof v === "number" ? String(v) : "";
};
const clock = (ms: number) =>
  new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });

const DECISIONS: Record<string, string> = {
  asked: "asked",
  approved: "approved",
  denied: "denied",
  expired: "expired",
  skipped: "skipped",
  refused: "answer refused",
  granted: "granted by a remembered approval",
};
const LEDGER: Record<string, string> = { ran: "ran", replayed: "replayed", outcome_unknown: "outcome unknown" };
const STOPS: Record<string, string> = {
  endTurn: "done",
  interrupt: "paused for approval",
  cancelled: "stopped",
  maxTokens: "cut at max tokens",
};

/** What a span's row says beside its name: the decision and ledger answer of a call, tokens of a model call. */
function labelOf(s: ReadableSpan): string {
  const op = text(s, GEN_AI.operation);
  const parts: string[] = [];
  if (op === "execute_tool") {
    const decision = text(s, KABOO.decision);
    if (decision) {
      const who = text(s, KABOO.principal);
      const said = DECISIONS[decision] ?? decision;
      parts.push(who && decision !== "asked" ? `${said} by ${personaLabel(who).toLowerCase()}` : said);
    }
    // Four eyes: how many of the approvals needed were given (one needed is the plain case, not said).
    const required = text(s, KABOO.required);
    if (Number(required) > 1) parts.push(`${text(s, KABOO.approvals) || 0} of ${required} approvals`);
    const ledger = text(s, KABOO.ledger);
    if (ledger) parts.push(LEDGER[ledger] ?? ledger);
    if (attr(s, KABOO.cancelled) === true) parts.push("not run");
  } else if (op === "chat") {
    const input = text(s, GEN_AI.inputTokens);
    const output = text(s, GEN_AI.outputTokens);
    if (input || output) parts.push(`${input || 0} in · ${output || 0} out tokens`);
  } else if (op === "invoke_agent") {
    if (attr(s, KABOO.resuming) === true) parts.push("resumes an answer");
    const stop = text(s, KABOO.stopReason);
    if (stop) parts.push(STOPS[stop] ?? stop);
  }
  if (s.status.code === 2) parts.push("failed");
  return parts.join(" · ");
}

/** The run's spans in tree order (each after its parent, siblings by start), with their depth. */
function treeOf(root: ReadableSpan, spans: readonly ReadableSpan[]): { span: ReadableSpan; depth: number }[] {
  const traceId = root.spanContext().traceId;
  const children = new Map<string, ReadableSpan[]>();
  for (const s of spans) {
    const parent = s.parentSpanContext;
    if (!parent || s.spanContext().traceId !== traceId) continue;
    const list = children.get(parent.spanId) ?? [];
    list.push(s);
    children.set(parent.spanId, list);
  }
  const rows: { span: ReadableSpan; depth: number }[] = [];
  const walk = (span: ReadableSpan, depth: number) => {
    rows.push({ span, depth });
    const below = (children.get(span.spanContext().spanId) ?? []).sort((a, b) => msOf(a.startTime) - msOf(b.startTime));
    for (const child of below) walk(child, depth + 1);
  };
  walk(root, 0);
  return rows;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, content = ""): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), { className, textContent: content });
}

/** One run: a heading (when, how long, how it ended) and its rows. */
function runSection(root: ReadableSpan, spans: readonly ReadableSpan[]): HTMLElement {
  const start = msOf(root.startTime);
  const total = Math.max(msOf(root.duration), 0.001);
  const section = el("section", "trace-run");
  const heading = el("h3", "trace-run-title");
  const time = el("time", "", clock(start));
  time.dateTime = new Date(start).toISOString();
  const resumed = root.links
    .map((l) => spans.find((s) => s.spanContext().spanId === l.context.spanId))
    .find((s) => s !== undefined);
  heading.append(
    time,
    ` Run · ${msText(msOf(root.duration))}${resumed ? ` · answers the question asked at ${clock(msOf(resumed.startTime))}` : ""}`,
  );
  const list = el("ol", "trace-rows");
  list.setAttribute("aria-label", `Spans of the run at ${clock(start)}`);
  for (const { span, depth } of treeOf(root, spans)) {
    const offset = msOf(span.startTime) - start;
    const duration = msOf(span.duration);
    const li = el("li", "trace-row");
    li.dataset["op"] = text(span, GEN_AI.operation);
    li.style.setProperty("--depth", String(depth));
    const label = labelOf(span);
    const track = el("span", "trace-track");
    track.setAttribute("aria-hidden", "true");
    const bar = el("span", "trace-bar");
    // Within the run's track: the browser's coarse clock can put a child's end a hair past its run's.
    const left = Math.min(100, Math.max(0, (offset / total) * 100));
    bar.style.left = `${left.toFixed(2)}%`;
    bar.style.width = `${Math.min(100 - left, (duration / total) * 100).toFixed(2)}%`;
    track.append(bar);
    const meta = el("span", "trace-meta");
    meta.append(el("span", "trace-at", `from +${msText(Math.max(0, offset))}`));
    if (label) meta.append(" · ", el("span", "trace-label", label));
    li.append(el("span", "trace-name", span.name), el("span", "trace-ms", msText(duration)), track, meta);
    list.append(li);
  }
  section.append(heading, list);
  return section;
}

/** The Trace view of the activity panel. */
export class TraceView {
  readonly #root: HTMLElement;
  #thread = "";
  #open = false;
  #frame = 0;

  constructor(root: HTMLElement) {
    this.#root = root;
    onSpanEnd(() => {
      if (this.#open) this.#frame ||= requestAnimationFrame(() => this.#draw());
    });
  }

  /** Shows a conversation's latest runs (and keeps them current while open). */
  show(threadId: string): void {
    this.#thread = threadId;
    this.#open = true;
    this.#draw();
  }

  /** Stops redrawing (the view is hidden). */
  hide(): void {
    this.#open = false;
  }

  #draw(): void {
    this.#frame = 0;
    const spans = finishedSpans();
    const roots = spans
      .filter((s) => text(s, GEN_AI.operation) === "invoke_agent" && text(s, GEN_AI.conversationId) === this.#thread)
      .slice(-MAX_RUNS);
    if (!roots.length) {
      this.#root.replaceChildren(
        el("p", "muted trace-empty", "No run traced yet. Runs since this page opened show here, one row per span."),
      );
      return;
    }
    this.#root.replaceChildren(...roots.map((r) => runSection(r, spans)));
  }
}
