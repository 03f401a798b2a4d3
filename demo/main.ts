/**
 * The demo app: a banking assistant whose agent runs in this page through KabooAgent (AG-UI),
 * with approvals, remembered grants, threads kept in IndexedDB and reload-resume.
 *
 * URL parameters (for trying things out and for the e2e tests):
 * `?ttl=<seconds>` — deadline of a wire approval (default 30);
 * `?delay=<ms>` — pause between the scripted model's streamed chunks (default 12).
 */
import type { Interrupt as AguiInterrupt, ResumeEntry, Tool as AguiTool } from "@ag-ui/core";
import { IndexedDbSessionStore, KabooAgent } from "kaboo-workflows/agui";
import { IndexedDbGrantStore } from "kaboo-workflows/grants";
import { ActivityPanels } from "./activity.js";
import { ApprovalDialog, approvalRequest, type DialogAnswer } from "./approval-dialog.js";
import { toolCounts } from "./bank.js";
import { renderTranscript } from "./chat-view.js";
import { setupGrantsPanel } from "./grants-panel.js";
import { createRunner } from "./runner.js";
import { loadSettings, modelLabel, setupSettings } from "./settings.js";
import { ThreadList } from "./threads.js";

const $ = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;
const params = new URLSearchParams(location.search);
const ttl = Math.max(1, Number(params.get("ttl")) || 30);
const delay = Math.max(0, Number(params.get("delay") ?? 12) || 0);
const THEMES = ["dark", "light", "ocean", "forest", "sunset"] as const;
const THREAD_KEY = "kaboo-demo:thread";
const THEME_KEY = "kaboo-demo:theme";

const grantStore = new IndexedDbGrantStore();
const sessionStore = new IndexedDbSessionStore();
const panels = new ActivityPanels();
const dialog = new ApprovalDialog($<HTMLDialogElement>("#approval"));
const threads = new ThreadList(sessionStore, (id) => void openThread(id));
const transcript = $("#transcript");
const prompt = $<HTMLInputElement>("#prompt");
const stopFlags = new Map<string, boolean>();
/** Everything about the page that changes: one object, so each change is easy to find. */
const state = {
  settings: loadSettings(),
  /** The AG-UI agent of the open conversation (set by openThread before anything reads it). */
  kaboo: undefined as unknown as KabooAgent,
  threadId: sessionStorage.getItem(THREAD_KEY) ?? "",
  running: false,
  /** Why the last run of this conversation failed, shown under the transcript until the next one. */
  runError: "",
  /** Answers given so far to the open interrupts (a resume must answer them all). */
  answers: [] as ResumeEntry[],
  /** The animation frame a render is scheduled for (0: none). */
  frame: 0,
  toastTimer: undefined as ReturnType<typeof setTimeout> | undefined,
};

// The browser tool: the model may change how this page looks.
const CLIENT_TOOLS: AguiTool[] = [
  {
    name: "set_theme",
    description: "Changes the look of the banking app the person is using.",
    parameters: { type: "object", properties: { theme: { type: "string", enum: [...THEMES] } }, required: ["theme"] },
  },
];
function applyTheme(theme: string): void {
  document.documentElement.dataset["theme"] = theme;
}
const clientToolHandlers = {
  set_theme: (args: Record<string, unknown>) => {
    const theme = String(args["theme"]);
    if (!(THEMES as readonly string[]).includes(theme))
      return {
        status: "error" as const,
        content: [{ type: "text" as const, text: `Unknown theme "${theme}". Use one of ${THEMES.join(", ")}.` }],
      };
    applyTheme(theme);
    localStorage.setItem(THEME_KEY, theme);
    return `The page now uses the ${theme} theme.`;
  },
};
applyTheme(localStorage.getItem(THEME_KEY) ?? "light");

type Status = "loading" | "idle" | "running" | "awaiting-approval" | "error";
function setStatus(status: Status): void {
  document.body.dataset["status"] = status;
  state.running = status === "running";
  // Screen readers wait for the streamed answer to finish instead of reading every chunk.
  transcript.setAttribute("aria-busy", String(state.running));
  $<HTMLButtonElement>("#send").hidden = state.running;
  $<HTMLButtonElement>("#stop").hidden = !state.running;
  $<HTMLButtonElement>("#new-thread").disabled = state.running;
  const waiting = status === "awaiting-approval";
  $("#pending-banner").hidden = !waiting || dialog.open;
  prompt.disabled = state.running || waiting;
  prompt.placeholder = waiting ? "Answer the approval first" : "Ask about your accounts, or e.g. “send 42 to Bob”";
  void threads.refresh(state.threadId, state.running);
}

function render(): void {
  const awaiting = new Set(state.kaboo.pendingInterrupts.flatMap((i) => (i.toolCallId ? [i.toolCallId] : [])));
  renderTranscript(transcript, state.kaboo.messages, { awaiting, running: state.running });
  if (state.runError) {
    const note = document.createElement("div");
    note.className = "msg run-error";
    note.setAttribute("role", "alert");
    note.textContent = `Something went wrong: ${state.runError}`;
    transcript.append(note);
  }
  $("#welcome").hidden = state.kaboo.messages.length > 0;
  panels.updateContext(state.threadId, state.kaboo.messages);
}
function scheduleRender(): void {
  state.frame ||= requestAnimationFrame(() => {
    state.frame = 0;
    render();
  });
}

function toast(text: string): void {
  const t = $("#toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(state.toastTimer);
  state.toastTimer = setTimeout(() => (t.hidden = true), 5000);
}

function makeAgent(id: string): KabooAgent {
  const agent = new KabooAgent({
    threadId: id,
    agent: (t) =>
      createRunner(
        t,
        state.settings,
        {
          stopRequested: (thread) => stopFlags.get(thread) === true,
          onContext: (thread, report) => panels.report(thread, report),
          onEvent: (event) => panels.add(event),
        },
        ttl,
        delay,
      ),
    grantStore,
    sessionStore,
    clientToolHandlers,
  });
  agent.subscribe({
    onMessagesChanged: scheduleRender,
    onEvent: scheduleRender,
    onRunErrorEvent: ({ event }) => {
      state.runError = event.message;
    },
  });
  return agent;
}

/** Opens a conversation: restores its transcript and any approval it waits for. */
async function openThread(id: string): Promise<void> {
  if (state.running) return;
  dialog.close();
  state.threadId = id;
  sessionStorage.setItem(THREAD_KEY, id);
  state.answers = [];
  state.runError = "";
  state.kaboo = makeAgent(id);
  setStatus("loading");
  await state.kaboo.connectAgent();
  panels.showThread(id, state.kaboo.messages);
  render();
  afterRun();
  document.body.classList.remove("show-threads");
}

/** After a run (or a restore): ask the next open question, or wait for the person. */
function afterRun(): void {
  const open = state.kaboo.pendingInterrupts.filter((i) => !state.answers.some((a) => a.interruptId === i.id));
  if (!open.length) {
    setStatus("idle");
    if (document.activeElement === document.body) prompt.focus();
    return;
  }
  setStatus("awaiting-approval");
  askNext();
}

function askNext(): void {
  const next = state.kaboo.pendingInterrupts.find((i) => !state.answers.some((a) => a.interruptId === i.id));
  if (!next) return;
  if (!approvalRequest(next)) {
    // Not an approval this page knows how to ask: skip it rather than leave the run stuck.
    answer(next, undefined);
    return;
  }
  dialog.show(next, (a) => answer(next, a));
  $("#pending-banner").hidden = true;
}

function answer(i: AguiInterrupt, a: DialogAnswer | undefined): void {
  // The runner refuses an answer to an expired request; cancelling it lets the gate tell the
  // model the request expired (and the call did not run).
  const expired = i.expiresAt !== undefined && Date.parse(i.expiresAt) <= Date.now();
  state.answers.push(
    a && !expired ? { interruptId: i.id, status: "resolved", payload: { ...a } } : { interruptId: i.id, status: "cancelled" },
  );
  if (state.kaboo.pendingInterrupts.some((p) => !state.answers.some((x) => x.interruptId === p.id))) {
    askNext();
    return;
  }
  const resume = state.answers;
  state.answers = [];
  void run({ resume });
}

async function run(extra: { resume?: ResumeEntry[] } = {}): Promise<void> {
  stopFlags.set(state.threadId, false);
  state.runError = "";
  setStatus("running");
  const agent = state.kaboo;
  try {
    await agent.runAgent({ tools: CLIENT_TOOLS, ...extra });
  } catch (error) {
    if (!stopFlags.get(state.threadId)) state.runError ||= error instanceof Error ? error.message : String(error);
  }
  if (agent !== state.kaboo) return;
  render();
  $<HTMLButtonElement>("#stop").disabled = false;
  if (stopFlags.get(state.threadId)) {
    setStatus("idle");
    prompt.focus();
    return;
  }
  afterRun();
}

function send(text: string): void {
  if (state.running || document.body.dataset["status"] !== "idle") return;
  state.kaboo.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
  render();
  void run();
}

$("#composer").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = prompt.value.trim();
  if (!text) return;
  prompt.value = "";
  send(text);
});
for (const chip of document.querySelectorAll<HTMLButtonElement>(".chip"))
  chip.addEventListener("click", () => send(chip.dataset["prompt"] ?? ""));
// Stop: the StopGuard refuses further tool calls and the abort cuts the streaming answer; the
// run then ends as "cancelled" and run() puts the page back to idle.
$("#stop").addEventListener("click", () => {
  if (!state.running) return;
  stopFlags.set(state.threadId, true);
  $<HTMLButtonElement>("#stop").disabled = true;
  state.kaboo.abortRun();
  toast("Stopped. Nothing else will run in this answer.");
});
$("#review").addEventListener("click", () => askNext());
$("#approval").addEventListener("close", () => {
  if (document.body.dataset["status"] !== "awaiting-approval") return;
  $("#pending-banner").hidden = false;
  $("#review").focus();
});
$("#new-thread").addEventListener("click", () => void openThread(crypto.randomUUID()).then(() => prompt.focus()));

// Narrow screens: the conversations and the side panel are drawers.
function drawer(name: "threads" | "panel", open?: boolean): void {
  const cls = `show-${name}`;
  const on = open ?? !document.body.classList.contains(cls);
  document.body.classList.remove("show-threads", "show-panel");
  document.body.classList.toggle(cls, on);
  $(`#toggle-${name}`).setAttribute("aria-expanded", String(on));
  $("#scrim").hidden = !on;
}
$("#toggle-threads").addEventListener("click", () => drawer("threads"));
$("#toggle-panel").addEventListener("click", () => drawer("panel"));
$("#scrim").addEventListener("click", () => drawer("threads", false));
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && $("#scrim").hidden === false) drawer("threads", false);
});

const settingsDialog = $<HTMLDialogElement>("#settings");
$("#model-label").textContent = modelLabel(state.settings);
$("#open-settings").addEventListener("click", () => settingsDialog.showModal());
setupSettings(settingsDialog, (next) => {
  state.settings = next;
  $("#model-label").textContent = modelLabel(next);
  document.body.dataset["model"] = next.provider;
  // Runners are built per thread with the model of the moment: start this thread's afresh.
  void openThread(state.threadId);
});
document.body.dataset["model"] = state.settings.provider;

setupGrantsPanel($("#grants"), grantStore, (id) => threads.title(id));

/** For the e2e tests and the curious: `__demo.counts.transfer` is how many transfers ran. */
const demo = {
  get counts() {
    return toolCounts();
  },
  get agent() {
    return state.kaboo;
  },
  grantStore,
  sessionStore,
};
(globalThis as { __demo?: typeof demo }).__demo = demo;

// A reload keeps this tab's conversation; a new tab starts a new one (the others are in the list).
void openThread(state.threadId || crypto.randomUUID());
