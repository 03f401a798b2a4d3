/**
 * The embedded model: a ScriptedModel with rules, so the demo needs no key and no network and
 * every run is the same. The phrases it understands are listed in demo/README.md.
 */
import {
  ScriptedModel,
  toolResultText,
  type Message,
  type ScriptedRequest,
  type ScriptedTurn,
  type ToolResultBlock,
} from "kaboo-workflows";
import { eur, person } from "./bank.js";

const AMOUNT = String.raw`(?:€|eur\s*)?(\d+(?:[.,]\d{1,2})?)\s*(?:€|eur(?:os?)?|euros?)?`;
const NAME = "([a-z][a-z'-]{0,39})";
const SEND_TO = new RegExp(String.raw`\b(?:send|pay|transfer|give)\s+${AMOUNT}\s+to\s+${NAME}`, "i");
const PAY_NAME = new RegExp(String.raw`\b(?:pay|send)\s+${NAME}\s+${AMOUNT}`, "i");
const WIRE = new RegExp(
  String.raw`\bwire\s+(\d+(?:[.,]\d{1,2})?)\s*(eur|usd|gbp|chf)?\s+to\s+${NAME}(?:\s+(?:at\s+)?([A-Z]{2}\d{2}[A-Z0-9]{8,30}))?`,
  "i",
);
const THEME = /\b(dark|light|ocean|forest|sunset)\s+(?:mode|theme)\b|\btheme\s+(?:to\s+)?(dark|light|ocean|forest|sunset)\b/i;
const FREEZE = /\b(?:freeze|block|lost)\b[^\d]*?(?:card)?[^\d]*(\d{4})?/i;

const EXPLAIN = [
  "Here is what happens when you ask me to move money.",
  "",
  "1. **The model proposes, the page decides.** I only *propose* a tool call such as `transfer({ to, amount })`. Before it runs, the InterruptHook looks at the call and pauses the run with an approval request. Nothing has moved yet: the run is frozen mid-turn, and its state is saved in IndexedDB.",
  "",
  '2. **You choose how far a yes reaches.** "Approve once" covers this call only. "For this conversation" and "Always" become grants, and grants are narrow on purpose: a grant for transfers to Bob says nothing about transfers to Carol, because the gate\'s subject is the recipient, not the whole tool.',
  "",
  "3. **Edits are checked, not trusted.** If you edit the arguments, they are validated against the tool's schema twice: here in the dialog, and again by the hook. If the edit changes the recipient, the hook asks again for the new one.",
  "",
  "4. **Deadlines are real.** International wires carry a deadline. An answer that arrives after it does not run the call; I am told the request expired and say so.",
  "",
  "5. **A reload is not a retry.** If you close the tab while I wait, the paused run comes back from IndexedDB with the same question. Approving it runs the call exactly once, even if the answer is sent twice.",
  "",
  "6. **Some tools ask for themselves.** Freezing a card goes through the card service, which replies with its own approval request instead of a result. The ToolApprovalHook turns that into the same dialog, tells the service what you decided, and only then calls the tool again.",
  "",
  "Everything you see in the event log on the right comes from the EventPublisher hook, and the context meter from the ContextHook, which clears old, long tool results once the conversation grows past its budget.",
].join("\n");

const HELP =
  "Hi! I'm your banking assistant (a scripted model running in this page). Try:\n" +
  "• “What's my balance?”\n• “Send 42 to Bob”\n• “Wire 900 EUR to Lena”\n• “Freeze my card 4821”\n• “Switch to dark mode”\n• “Show my statement”\n• “Explain how approvals work”";

function money(text: string): number {
  return Number(text.replace(",", "."));
}

function toolNameOf(messages: Message[], result: ToolResultBlock): string {
  for (const m of messages)
    for (const b of m.content) if (b.type === "toolUse" && b.toolUseId === result.toolUseId) return b.name;
  return "tool";
}

function afterResult(name: string, result: ToolResultBlock): string {
  const text = toolResultText(result.content);
  if (result.status === "success") {
    if (name === "get_balance") return `Your balances — ${text}`;
    if (name === "get_statement")
      return "Here are your last 30 card payments. Your biggest spend this month was groceries; nothing looks unusual.";
    if (name === "set_theme") return `Done — ${text}`;
    return `Done. ${text}`;
  }
  if (/denied/i.test(text))
    return `Understood — you denied the ${name.replace("_", " ")}, so I did not do it. Nothing was sent or changed.`;
  if (/expired/i.test(text))
    return `The approval request for ${name.replace("_", " ")} expired before it was answered, so it did not run. Ask me again when you're ready.`;
  if (/stopped/i.test(text)) return "Stopped. I did not run anything else.";
  if (/edited arguments/i.test(text))
    return `Your edited arguments were not valid, so ${name} did not run: ${text.split("\n").slice(1).join(" ")}`;
  return `That did not work: ${text}`;
}

/** The rules, as a responder. Exported for tests of the phrases. */
export function respond({ lastUserText, lastToolResults, messages }: ScriptedRequest): ScriptedTurn {
  if (lastToolResults.length) return { text: lastToolResults.map((r) => afterResult(toolNameOf(messages, r), r)).join("\n\n") };
  if (messages.at(-1)?.role === "assistant") return { text: "Is there anything else I can do?" };
  const said = lastUserText.trim();
  let m: RegExpExecArray | null;
  if ((m = WIRE.exec(said))) {
    const [, amount, currency, to, iban] = m;
    const input = {
      to: to!.toLowerCase(),
      iban: iban ?? "DE89370400440532013000",
      amount: money(amount!),
      currency: (currency ?? "EUR").toUpperCase(),
    };
    return {
      reasoning: `An international wire of ${input.amount} ${input.currency} to ${person(input.to)}. Wires need a fresh approval with a deadline, so I'll propose the call and wait.`,
      text: `I'll prepare a wire of ${input.amount} ${input.currency} to ${person(input.to)}.`,
      toolCalls: [{ name: "wire_abroad", input }],
    };
  }
  if ((m = SEND_TO.exec(said)) || (m = PAY_NAME.exec(said))) {
    const byAmount = SEND_TO.test(said);
    const amount = money(byAmount ? m[1]! : m[2]!);
    const to = (byAmount ? m[2]! : m[1]!).toLowerCase();
    return {
      reasoning: `The person wants to send ${eur(amount)} to ${person(to)}. Transfers need approval for each recipient unless one was granted.`,
      text: `Sending ${eur(amount)} to ${person(to)}.`,
      toolCalls: [{ name: "transfer", input: { to, amount } }],
    };
  }
  if ((m = THEME.exec(said))) {
    const theme = (m[1] ?? m[2]!).toLowerCase();
    return { text: `Switching to the ${theme} theme.`, toolCalls: [{ name: "set_theme", input: { theme } }] };
  }
  if (/\bbalance|how much (?:do i have|money)/i.test(said)) {
    return { reasoning: "A read-only lookup; it never needs approval.", toolCalls: [{ name: "get_balance", input: {} }] };
  }
  if (/\bstatement|transactions|payments\b/i.test(said)) {
    return { text: "Fetching your statement.", toolCalls: [{ name: "get_statement", input: { account: "checking" } }] };
  }
  if ((m = FREEZE.exec(said)) && /card/i.test(said)) {
    return {
      reasoning: "Freezing a card goes through the card service; it will ask the person itself.",
      text: "I'll ask the card service to freeze it.",
      toolCalls: [{ name: "freeze_card", input: { last4: m[1] ?? "4821" } }],
    };
  }
  if (/\bexplain|how does|how do approvals/i.test(said)) {
    return { reasoning: "A long answer: walk through the approval flow step by step.", text: EXPLAIN };
  }
  return { text: HELP };
}

/**
 * The scripted model the demo runs by default.
 * @param delayMs - Pause between streamed chunks. Default 12.
 */
export function scriptedModel(delayMs = 12): ScriptedModel {
  return new ScriptedModel({ script: respond, delayMs, chunkSize: 3, modelId: "scripted-bank" });
}
