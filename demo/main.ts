/**
 * Placeholder demo: an Agent with a ScriptedModel, run in the page. Shows the transcript as it
 * streams, every hook event as it fires, and an approval (Approve/Deny) raised as an interrupt
 * by a BeforeToolCallEvent hook. The real demo replaces this file.
 */
import * as z from "zod/v4";
import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterToolCallEvent,
  Agent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  MessageAddedEvent,
  ScriptedModel,
  tool,
  toolResultText,
  type AgentInput,
  type HookEvent,
  type Interrupt,
  type JsonValue,
} from "../src/index.js";

function el<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`demo: #${id} is missing from index.html`);
  return found as T;
}
const transcript = el<HTMLDivElement>("transcript");
const events = el<HTMLOListElement>("events");
const approval = el<HTMLElement>("approval");
const approvalText = el<HTMLParagraphElement>("approval-text");
const form = el<HTMLFormElement>("form");
const prompt = el<HTMLInputElement>("prompt");

const transfer = tool({
  name: "transfer",
  description: "Sends an amount of money to someone.",
  inputSchema: z.object({ to: z.string().min(1), amount: z.number().positive() }),
  callback: ({ to, amount }) => `Sent ${amount} to ${to}.`,
});

// Rules rather than a fixed script, so every prompt gets a sensible answer.
const model = new ScriptedModel({
  delayMs: 25,
  chunkSize: 4,
  script: ({ lastToolResults, lastUserText }) => {
    const result = lastToolResults[0];
    if (result) {
      const text = toolResultText(result.content);
      return { text: result.status === "success" ? `Done. ${text}` : `I did not make the transfer: ${text}` };
    }
    const match = /(\d+(?:\.\d+)?)\D+?(?:to\s+)?([A-Za-z]+)\s*$/.exec(lastUserText.trim());
    if (!match) return { text: `Ask me to send money, e.g. “send 42 to bob”. You said: “${lastUserText}”.` };
    return { text: "Let me do that.", toolCalls: [{ name: "transfer", input: { to: match[2], amount: Number(match[1]) } }] };
  },
});

const agent = new Agent({ name: "demo", model, tools: [transfer], systemPrompt: "You move money when asked." });

agent.hooks.addCallback(BeforeToolCallEvent, (event) => {
  const answer = event.interrupt({ name: "approve", reason: { tool: event.toolUse.name, input: event.toolUse.input as JsonValue } });
  const approved = typeof answer === "object" && answer !== null && !Array.isArray(answer) && answer["approved"] === true;
  if (!approved) event.cancel = "The person denied this call.";
});

function logEvent(event: HookEvent, detail: string): void {
  const li = document.createElement("li");
  li.textContent = detail ? `${event.type} · ${detail}` : event.type;
  li.dataset["type"] = event.type;
  events.append(li);
  li.scrollIntoView({ block: "nearest" });
}
agent.hooks.addCallback(BeforeInvocationEvent, (e) => logEvent(e, ""));
agent.hooks.addCallback(BeforeModelCallEvent, (e) => logEvent(e, `~${e.projectedInputTokens} tokens in`));
agent.hooks.addCallback(AfterModelCallEvent, (e) => logEvent(e, e.error ? `error: ${String(e.error)}` : (e.stopResponse?.stopReason ?? "")));
agent.hooks.addCallback(BeforeToolCallEvent, (e) => logEvent(e, `${e.toolUse.name} ${JSON.stringify(e.toolUse.input)}`));
agent.hooks.addCallback(AfterToolCallEvent, (e) => logEvent(e, `${e.toolUse.name}: ${e.result.status}`));
agent.hooks.addCallback(MessageAddedEvent, (e) => logEvent(e, e.message.role));
agent.hooks.addCallback(AfterInvocationEvent, (e) => logEvent(e, ""));

function bubble(kind: "user" | "assistant" | "tool", text: string): HTMLDivElement {
  const div = document.createElement("div");
  div.className = `msg ${kind}`;
  div.textContent = text;
  transcript.append(div);
  div.scrollIntoView({ block: "nearest" });
  return div;
}

function setStatus(status: "idle" | "running" | "awaiting-approval" | "done" | "error"): void {
  document.body.dataset["status"] = status;
  form.querySelector("button")!.disabled = status === "running" || status === "awaiting-approval";
}

async function run(input: AgentInput): Promise<void> {
  setStatus("running");
  let current: HTMLDivElement | undefined;
  try {
    const stream = agent.stream(input);
    for (;;) {
      const next = await stream.next();
      if (next.done) {
        const result = next.value;
        if (result.stopReason === "interrupt") ask(result.interrupts);
        else setStatus("done");
        return;
      }
      const ev = next.value;
      if (ev.type === "model" && ev.event.type === "messageStart") current = undefined;
      if (ev.type === "model" && ev.event.type === "contentBlockDelta" && ev.event.delta.type === "text") {
        current ??= bubble("assistant", "");
        current.textContent += ev.event.delta.text;
      }
      if (ev.type === "toolResult") bubble("tool", `${ev.toolUse.name} → ${toolResultText(ev.result.content)}`);
    }
  } catch (error) {
    bubble("tool", `Error: ${error instanceof Error ? error.message : String(error)}`);
    setStatus("error");
  }
}

function ask(interrupts: Interrupt[]): void {
  const first = interrupts[0];
  if (!first) return setStatus("done");
  approvalText.textContent = `Allow ${JSON.stringify(first.reason)}?`;
  approval.hidden = false;
  setStatus("awaiting-approval");
  const answer = (approved: boolean) => {
    approval.hidden = true;
    void run(interrupts.map((i) => ({ interruptResponse: { interruptId: i.id, response: { approved } } })));
  };
  el<HTMLButtonElement>("approve").onclick = () => answer(true);
  el<HTMLButtonElement>("deny").onclick = () => answer(false);
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  const text = prompt.value.trim();
  if (!text || agent.running) return;
  prompt.value = "";
  bubble("user", text);
  void run(text);
});
