/**
 * The demo app: a banking assistant whose agent runs in this page through KabooAgent (AG-UI),
 * with approvals, remembered grants, threads kept in IndexedDB and reload-resume.
 *
 * URL parameters (for trying things out and for the e2e tests):
 * `?ttl=<seconds>` — deadline of a wire approval (default 30);
 * `?delay=<ms>` — pause between the scripted model's streamed chunks (default 12);
 * `?fail=<n>` — the scripted model's first n calls fail (to try Retry);
 * `?bankms=<ms>` — the bank takes this long to book a transfer (to reload mid-call).
 */
import type { Interrupt as AguiInterrupt, ResumeEntry } from "@ag-ui/core";
import type { Model } from "kaboo-workflows";
import { IndexedDbSessionStore, KabooAgent } from "kaboo-workflows/agui";
import { IndexedDbGrantStore } from "kaboo-workflows/grants";
import { ActivityPanels } from "./activity.js";
import { lapsed } from "./approval-card.js";
import { answerOf, approvalRequest, DECISIONS, type Decision, type DialogAnswer } from "./approval-request.js";
import { LazyDialog } from "./dialog-loader.js";
import { toolCounts } from "./bank.js";
import { canRegenerate, contentText, type StopMark, transcriptBlocks } from "./chat-view.js";
import { setupGrantsPanel } from "./grants-panel.js";
import { pageAudit, showAudit, watchAudit, watchOtherTabs } from "./audit-view.js";
import { bindPersona, persona, setupPersona } from "./persona.js";
import {
  addStopMark,
  answering,
  doneAnswering,
  dropErrorMark,
  forgetMarks,
  keepStopMarks,
  markAsked,
  noteAnswering,
  stopMarks,
  wasAsked,
} from "./marks.js";
import { copyReply, setupControls, toast } from "./controls.js";
import { closeDrawers, setupChrome } from "./page-chrome.js";
import { modelMaker } from "./models.js";
import type { createRunner } from "./runner.js";
import { GATE_SUBJECTS } from "./subjects.js";
import { loadSettings, modelLabel, setupSettings } from "./settings.js";
import { setThemeTool, setupTheme, THEME_TOOL } from "./theme.js";
import { ThreadList } from "./threads.js";
import { loadMarkdown, onMarkdownReady } from "./markdown-loader.js";
import { Transcript } from "./transcript.js";

const $ = <T extends HTMLElement>(sel: string) => document.querySelector<T>(sel)!;
const params = new URLSearchParams(location.search);
const ttl = Math.max(1, Number(params.get("ttl")) || 30);
const delay = Math.max(0, Number(params.get("delay") ?? 12) || 0);
const THREAD_KEY = "kaboo-demo:thread";

// Revocations go to the person's grants trail (`kaboo:grants:<persona>`) in the same audit log.
const grantStore = new IndexedDbGrantStore({ audit: pageAudit });
const sessionStore = new IndexedDbSessionStore();
const panels = new ActivityPanels();
const dialog = new LazyDialog($<HTMLDialogElement>("#approval"));
const prompt = $<HTMLInputElement>("#prompt");
const stopFlags = new Map<string, boolean>();
/** Each conversation's run in progress: made before the runner's code loads, so a Stop at once still stops it. */
const runStops = new Map<string, AbortController>();
/** Tells the other tabs that a conversation changed (a run ended there). */
const tabs = new BroadcastChannel("kaboo-demo:threads");

/** Everything about the page that changes: one object, so each change is easy to find. */
const state = {
  settings: loadSettings(),
  /** Makes the model of the settings (loaded before the first conversation opens). */
  model: undefined as unknown as () => Model,
  /** The AG-UI agent of the open conversation (set by openThread before anything reads it). */
  kaboo: undefined as unknown as KabooAgent,
  threadId: sessionStorage.getItem(THREAD_KEY) ?? "",
  running: false,
  /** Why the last run of this conversation failed, shown under the transcript until the next one. */
  runError: "",
  /** Answers given so far to the open interrupts (a resume must answer them all). */
  answers: [] as ResumeEntry[],
  /** Where runs of this conversation were stopped. */
  marks: [] as StopMark[],
  /** The model changed while a run went on: open the thread afresh (with the new model) when it ends. */
  reopen: false,
  /** A saved model still being made (its code loads on demand): a message sent meanwhile waits for it. */
  switching: undefined as Promise<void> | undefined,
  /** The animation frame a render is scheduled for (0: none). */
  frame: 0,
};

const transcript = new Transcript($("#transcript"), $<HTMLButtonElement>("#to-bottom"), (action, target) => {
  if (action === "prompt") void send(target.dataset["prompt"] ?? "");
  else if (action === "copy") void copyReply(target, state.kaboo.messages);
  else if (action === "retry" && !state.running) void run();
  else if (action === "regenerate") regenerate();
  else if (action === "review") review(target.dataset["interruptId"]);
  else if (action === "decide") decide(target);
});
const threads = new ThreadList(sessionStore, {
  open: (id) => void openThread(id),
  deleted: (id) => {
    panels.forget(id);
    forgetMarks(id);
    if (id === state.threadId) void openThread(crypto.randomUUID());
    else void threads.refresh(state.threadId, state.running);
  },
  changed: () => void renderGrants(),
});

type Status = "loading" | "idle" | "running" | "awaiting-approval" | "error";
function setStatus(status: Status): void {
  document.body.dataset["status"] = status;
  state.running = status === "running";
  $("#transcript").setAttribute("aria-busy", String(state.running));
  const sendButton = $<HTMLButtonElement>("#send");
  // The button about to hide must not take the focus with it (it would fall to the page's top).
  if (state.running && document.activeElement === sendButton) prompt.focus();
  sendButton.hidden = state.running;
  $<HTMLButtonElement>("#stop").hidden = !state.running;
  $<HTMLButtonElement>("#new-thread").disabled = state.running;
  const waiting = status === "awaiting-approval";
  // Short enough for a 375 px phone.
  const narrow = matchMedia("(max-width: 560px)").matches;
  prompt.placeholder = waiting
    ? "Type “yes” or “no”"
    : state.running
      ? "Esc stops the answer"
      : narrow
        ? "Ask about your money"
        : "Ask about your accounts, or e.g. “send 42 to Bob”";
  void threads.refresh(state.threadId, state.running);
}

function ruleFor(tool: string, args: Record<string, unknown>, callId: string): string | undefined {
  const subject = GATE_SUBJECTS[tool];
  return subject && !wasAsked(callId) ? subject(tool, args).label : undefined;
}

function render(): void {
  // While a run goes on, nothing waits for the person (the interrupts it answers are still listed).
  const pending = state.running ? [] : state.kaboo.pendingInterrupts;
  watchDeadlines(pending);
  markAsked(pending.flatMap((i) => (i.toolCallId ? [i.toolCallId] : [])));
  const awaiting = new Map(pending.flatMap((i) => (i.toolCallId ? [[i.toolCallId, i] as const] : [])));
  const view = {
    awaiting,
    answered: new Set(state.answers.map((a) => a.interruptId)),
    running: state.running,
    marks: state.marks,
    ruleFor,
    isOpen: (k: string) => transcript.isOpen(k),
  };
  transcript.update(transcriptBlocks(state.kaboo.messages, view));
  const welcome = $("#welcome");
  if (welcome.hidden !== state.kaboo.messages.length > 0) welcome.hidden = state.kaboo.messages.length > 0;
  panels.updateContext(state.threadId, state.kaboo.messages);
}
function scheduleRender(): void {
  state.frame ||= requestAnimationFrame(() => {
    state.frame = 0;
    render();
  });
}

/**
 * The agent loop, its hooks and the bank's tools (./runner.ts) load with the first run, not with the
 * page: {@link run} waits for them before it starts one.
 */
const runner = {
  create: undefined as typeof createRunner | undefined,
  loading: undefined as Promise<void> | undefined,
};
function loadRunner(): Promise<void> {
  runner.loading ??= import("./runner.js").then((m) => {
    runner.create = m.createRunner;
  });
  return runner.loading;
}

function makeAgent(id: string): KabooAgent {
  const agent = new KabooAgent({
    threadId: id,
    agent: (t) => {
      if (!runner.create) throw new Error("The agent is still loading.");
      return runner.create(
        t,
        state.model,
        {
          stopRequested: (thread) => stopFlags.get(thread) === true,
          onContext: (thread, report) => panels.report(thread, report),
          onEvent: (event) => panels.add(event),
        },
        ttl,
      );
    },
    grantStore,
    sessionStore,
    audit: pageAudit,
    // This tab's persona: who asks, and who approves a wire that needs a second person.
    principal: persona,
    clientToolHandlers: { set_theme: setThemeTool },
  });
  watchAudit(agent, () => state.threadId);
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
  if (id !== state.threadId) transcript.clear();
  state.threadId = id;
  sessionStorage.setItem(THREAD_KEY, id);
  state.answers = [];
  state.runError = "";
  state.marks = stopMarks(id);
  state.kaboo = makeAgent(id);
  setStatus("loading");
  // A run the page left unfinished (or one another tab drives) continues on connect: it needs the runner.
  const stored = await sessionStore.load(id);
  if (stored?.run?.status === "running" || answering(id).length) await loadRunner();
  await state.kaboo.connectAgent();
  panels.showThread(id, state.kaboo.messages);
  showAudit(() => state.threadId);
  render();
  if (!resumeCut()) afterRun();
  // The scrim too: a conversation chosen in the 375 px drawer left it over the page.
  closeDrawers();
}

/**
 * The page closed while a run carried the person's answers: send the same answers again rather than
 * ask the same question twice. A call the bank had already started comes back as the one question
 * that is still open (did it go through?); one that had not started runs, as it was approved.
 */
function resumeCut(): boolean {
  const sent = answering(state.threadId);
  const open = state.kaboo.pendingInterrupts;
  if (!sent.length || !open.length || !open.every((i) => sent.some((a) => a.interruptId === i.id))) {
    doneAnswering(state.threadId);
    return false;
  }
  void run({ resume: sent.filter((a) => open.some((i) => i.id === a.interruptId)) as ResumeEntry[] });
  return true;
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

/** Asks the next open question: its card's first choice takes the focus, or the dialog shows it. */
function askNext(inDialog = false): void {
  const next = state.kaboo.pendingInterrupts.find((i) => !state.answers.some((a) => a.interruptId === i.id));
  if (!next) return;
  if (!approvalRequest(next)) {
    // Not an approval this page knows how to ask: skip it rather than leave the run stuck.
    answer(next, undefined);
    return;
  }
  if (inDialog && !lapsed(next)) {
    void dialog.show(next, (a) => answer(next, a, true));
    return;
  }
  render();
  const card = [...document.querySelectorAll<HTMLElement>("#transcript .approval-card [data-decision]")];
  card.find((b) => b.dataset["interruptId"] === next.id)?.focus();
}

/** "Details and edit" on a card: the dialog, the focused view of the same question. */
function review(interruptId: string | undefined): void {
  const i = state.kaboo.pendingInterrupts.find((p) => p.id === interruptId);
  if (i && !state.answers.some((a) => a.interruptId === i.id)) void dialog.show(i, (a) => answer(i, a, true));
}

/** A choice on a card (Deny, Approve, Always…, It went through…). */
function decide(button: HTMLElement): void {
  const decision = button.dataset["decision"] as Decision;
  const i = state.kaboo.pendingInterrupts.find((p) => p.id === button.dataset["interruptId"]);
  if (!i || !DECISIONS.includes(decision) || state.answers.some((a) => a.interruptId === i.id)) return;
  answer(i, answerOf(decision));
}

/** Redraws the cards when a deadline passes, so a lapsed request says it expired. */
const deadlines = new Map<string, ReturnType<typeof setTimeout>>();
function watchDeadlines(open: readonly AguiInterrupt[]): void {
  for (const i of open) {
    if (!i.expiresAt || deadlines.has(i.id)) continue;
    const ms = Date.parse(i.expiresAt) - Date.now();
    if (ms > 0) deadlines.set(i.id, setTimeout(scheduleRender, ms + 50));
  }
}

function answer(i: AguiInterrupt, a: DialogAnswer | undefined, inDialog = false): void {
  // The runner refuses an answer to an expired request; cancelling it lets the gate tell the
  // model the request expired (and the call did not run).
  const expired = i.expiresAt !== undefined && Date.parse(i.expiresAt) <= Date.now();
  state.answers.push(
    a && !expired
      ? { interruptId: i.id, status: "resolved", payload: { ...a } }
      : { interruptId: i.id, status: "cancelled" },
  );
  if (state.kaboo.pendingInterrupts.some((p) => !state.answers.some((x) => x.interruptId === p.id))) {
    askNext(inDialog);
    return;
  }
  const resume = state.answers;
  state.answers = [];
  void run({ resume });
}

async function run(extra: { resume?: ResumeEntry[] } = {}): Promise<void> {
  // A tab that acts is one person from now on: a persona switch cannot stand in for a second person.
  bindPersona();
  const threadId = state.threadId;
  stopFlags.set(threadId, false);
  const abortController = new AbortController();
  runStops.set(threadId, abortController);
  state.runError = "";
  const retried = state.kaboo.messages.at(-1)?.id;
  if (retried) state.marks = dropErrorMark(threadId, retried);
  setStatus("running");
  render();
  const agent = state.kaboo;
  if (extra.resume) noteAnswering(threadId, extra.resume);
  try {
    await loadRunner();
    await agent.runAgent({ tools: [THEME_TOOL], abortController, ...extra });
  } catch (error) {
    if (!stopFlags.get(threadId)) state.runError ||= error instanceof Error ? error.message : String(error);
  }
  if (runStops.get(threadId) === abortController) runStops.delete(threadId);
  doneAnswering(threadId);
  // The error stays under the message that failed, through later messages, reloads and settings.
  const failedAfter = agent.messages.at(-1)?.id;
  if (state.runError && failedAfter) addStopMark(threadId, { after: failedAfter, text: state.runError, kind: "error" });
  if (agent !== state.kaboo) return;
  state.marks = stopMarks(threadId);
  tabs.postMessage({ threadId });
  $<HTMLButtonElement>("#stop").disabled = false;
  if (stopFlags.get(threadId)) {
    markStopped();
    setStatus("idle");
    render();
    prompt.focus();
  } else {
    render();
    afterRun();
  }
  if (state.reopen && !state.running) {
    state.reopen = false;
    await openThread(threadId);
  }
}

/** Leaves a mark where the run was stopped, so the cut answer (or the missing one) is explained. */
function markStopped(): void {
  const last = state.kaboo.messages.at(-1);
  if (!last) return;
  const cut = last.role === "assistant" && contentText(last).length > 0;
  const text = cut ? "Stopped — the answer was cut short here." : "Stopped before the assistant replied.";
  state.marks = addStopMark(state.threadId, { after: last.id, text });
}

async function send(text: string): Promise<void> {
  if (!text || state.running) return;
  // "The next answer comes from" the saved model: a message sent before it is ready waits for it.
  if (state.switching) await state.switching;
  if (state.running || document.body.dataset["status"] !== "idle") {
    // Never dropped unsaid: the page is busy (a conversation loading), so the text goes back in the box.
    if (!prompt.value) prompt.value = text;
    return;
  }
  void loadMarkdown();
  void loadRunner();
  state.kaboo.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
  void run();
}

/** Runs the last question again without the replies it got. */
function regenerate(): void {
  if (state.running || document.body.dataset["status"] !== "idle") return;
  const messages = state.kaboo.messages;
  if (!canRegenerate(messages)) return;
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const kept = messages.slice(0, lastUser + 1);
  state.kaboo.setMessages(kept);
  state.marks = keepStopMarks(state.threadId, new Set(kept.slice(0, -1).map((m) => m.id)));
  void run();
}

function stop(): void {
  if (!state.running) return;
  stopFlags.set(state.threadId, true);
  $<HTMLButtonElement>("#stop").disabled = true;
  runStops.get(state.threadId)?.abort();
  state.kaboo.abortRun();
  toast("Stopped. Nothing else will run in this answer.");
}

onMarkdownReady(scheduleRender);
// The first key typed warms up what a reply needs, so Send does not wait for it.
prompt.addEventListener(
  "input",
  () => {
    void loadRunner();
    void loadMarkdown();
  },
  { once: true },
);
setupControls({ state, dialog, prompt, tabs, send, stop, askNext, answer, openThread });
setupChrome();
setupTheme($<HTMLButtonElement>("#theme-toggle"));
setupPersona($<HTMLSelectElement>("#persona"), () => {
  dialog.close();
  scheduleRender();
});
watchOtherTabs(() => state.threadId);
const settingsDialog = $<HTMLDialogElement>("#settings");
$("#model-label").textContent = modelLabel(state.settings);
$("#open-settings").addEventListener("click", () => settingsDialog.showModal());
setupSettings(settingsDialog, (next) => {
  state.settings = next;
  $("#model-label").textContent = modelLabel(next);
  document.body.dataset["model"] = next.provider;
  // Runners are built per thread with the model of the moment: this thread's starts afresh, now or,
  // while an answer is being written, as soon as it ends (that answer finishes with the old model).
  const writing = state.running;
  toast(
    writing
      ? `Saved. This answer finishes as it started; the next answer comes from ${modelLabel(next)}.`
      : `Saved. The next answer comes from ${modelLabel(next)}.`,
  );
  const switching = modelMaker(next, delay)
    .then((model) => {
      state.model = model;
      if (state.running) state.reopen = true;
      else return openThread(state.threadId);
    })
    .finally(() => {
      if (state.switching === switching) state.switching = undefined;
    });
  state.switching = switching;
});
document.body.dataset["model"] = state.settings.provider;

const renderGrants = setupGrantsPanel(
  $("#grants"),
  grantStore,
  (id) => threads.title(id),
  () => showAudit(() => state.threadId),
);

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
  /** The bank's answers to calls in flight never arrive (see `loseBankAnswers` in ./bank-tools.ts). */
  loseBankAnswers: () => import("./bank-tools.js").then((m) => m.loseBankAnswers()),
};
(globalThis as { __demo?: typeof demo }).__demo = demo;

// A reload keeps this tab's conversation; a new tab starts a new one (the others are in the list).
state.model = await modelMaker(state.settings, delay, Math.max(0, Number(params.get("fail")) || 0));
void openThread(state.threadId || crypto.randomUUID());
