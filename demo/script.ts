/**
 * The embedded model: a ScriptedModel with rules, so the demo needs no key and no network and
 * every run is the same. It reads what people type (demo/intents.ts: amounts with currency signs
 * or in words, "cancel"/"undo" in context), answers anything else briefly, and ends replies with
 * suggestions ("Try: “…” · “…”") that the page turns into buttons.
 */
import {
  type Message,
  type ScriptedRequest,
  type ScriptedTurn,
  type ToolResultBlock,
  toolResultText,
} from "kaboo-workflows";
import { actionNoun, outcomeDecision } from "./actions.js";
import { person } from "./bank.js";
import type { Intent } from "./intents.js";
import { formatMoney } from "./money.js";
import { intentInContext, paymentTurn, splitTurn, suggest } from "./script-pay.js";
import { EXPLAIN } from "./script-text.js";
import { recap } from "./script-recap.js";

export { suggest };

/** A tool call of the conversation with its result. */
export type Call = { id: string; name: string; input: Record<string, unknown>; result: ToolResultBlock | undefined };

/** Every tool call of the conversation with its result, oldest first. */
function calls(messages: Message[]): Call[] {
  const results = new Map<string, ToolResultBlock>();
  for (const m of messages) for (const b of m.content) if (b.type === "toolResult") results.set(b.toolUseId, b);
  return messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.type === "toolUse"
        ? [
            {
              id: b.toolUseId,
              name: b.name,
              input: (b.input ?? {}) as Record<string, unknown>,
              result: results.get(b.toolUseId),
            },
          ]
        : [],
    ),
  );
}

function afterResult(call: Call | undefined, result: ToolResultBlock): string {
  const name = call?.name ?? "tool";
  const noun = actionNoun(name);
  const text = toolResultText(result.content);
  const decided = outcomeDecision(text);
  if (decided === "went-through") return `Okay: you said ${noun} went through, so I did not do it again.`;
  if (decided === "cancelled")
    return `Okay, I won't run ${noun} again. If you're not sure it went through, your statement will show it.${suggest("Show my statement")}`;
  if (result.status === "success") {
    if (name === "get_balance") return `Your balances — ${text}${suggest("Show my statement", "Move 100 to savings")}`;
    if (name === "get_statement")
      return `Here are your last 30 card payments. Groceries were your biggest spend this month; nothing looks unusual.${suggest("What's my balance?")}`;
    if (name === "set_theme" || name === "move_money")
      return `Done — ${text}${suggest("Undo that", "What's my balance?")}`;
    return `Done. ${text}${suggest("What's my balance?", "Show my statement")}`;
  }
  if (/denied/i.test(text)) return `Understood — you declined ${noun}, so I didn't do it. Nothing was sent or changed.`;
  if (/expired/i.test(text))
    return `The approval for ${noun} expired before it was answered, so it did not happen. Ask me again when you're ready.`;
  if (/stopped/i.test(text)) return "Stopped. I did not do anything else.";
  if (/edited arguments/i.test(text))
    return `Your edited details were not valid, so ${noun} did not happen: ${text.split("\n").slice(1).join(" ")}`;
  return `That did not work: ${text.split("\n")[0]}`;
}

/** "undo" / "cancel that": what it means depends on what was done last. */
function undo(messages: Message[]): ScriptedTurn {
  const all = calls(messages);
  const last = all.at(-1);
  if (!last)
    return {
      text: `There's nothing to undo — I haven't done anything in this conversation yet.${suggest("What's my balance?")}`,
    };
  const noun = actionNoun(last.name);
  if (last.result?.status !== "success")
    return { text: `Nothing to undo: ${noun} did not happen, so nothing was sent or changed.` };
  const amount = Number(last.input["amount"]);
  switch (last.name) {
    case "move_money": {
      const back = last.input["to"] === "savings" ? "checking" : "savings";
      return {
        text: `Moving ${formatMoney(amount)} back to ${back}.`,
        toolCalls: [{ name: "move_money", input: { to: back, amount } }],
      };
    }
    case "set_theme": {
      const earlier = all.slice(0, -1).findLast((c) => c.name === "set_theme" && c.result?.status === "success");
      const theme = String(earlier?.input["theme"] ?? "light");
      return { text: `Switching back to the ${theme} theme.`, toolCalls: [{ name: "set_theme", input: { theme } }] };
    }
    case "transfer":
    case "wire_abroad": {
      const money = formatMoney(amount, String(last.input["currency"] ?? "EUR"));
      const to = person(String(last.input["to"] ?? "them"));
      return {
        text: `The ${money} to ${to} has already left your account, so I can't take it back from here. ${to} can send it back, or the bank can try to recall it within 24 hours.${suggest("What's my balance?")}`,
      };
    }
    case "freeze_card":
      return { text: "The card stays frozen: for your safety, unfreezing needs the card settings in the app." };
    default:
      return { text: "Looking things up changes nothing, so there's nothing to undo." };
  }
}

function forIntent(intent: Intent, said: string, messages: Message[]): ScriptedTurn {
  switch (intent.kind) {
    case "transfer":
    case "move":
    case "wire":
    case "need":
      return paymentTurn([intent]);
    case "several":
      return paymentTurn(intent.payments);
    case "split":
      return splitTurn(intent.names, intent.amount);
    case "recap":
      return recap(calls(messages));
    case "thanks":
      return {
        text: `You're welcome! Is there anything else I can do?${suggest("What's my balance?", "What did I just do?")}`,
      };
    case "dropped":
      return { text: "Okay, I won't send anything." };
    case "theme":
      return {
        text: `Switching to the ${intent.theme} theme.`,
        toolCalls: [{ name: "set_theme", input: { theme: intent.theme } }],
      };
    case "balance":
      return {
        reasoning: "A read-only lookup; it never needs approval.",
        toolCalls: [{ name: "get_balance", input: {} }],
      };
    case "statement":
      return {
        text: "Fetching your statement.",
        toolCalls: [{ name: "get_statement", input: { account: "checking" } }],
      };
    case "freeze":
      return {
        reasoning: "Freezing a card goes through the card service; it will ask the person itself.",
        text: "I'll ask the card service to freeze it.",
        toolCalls: [{ name: "freeze_card", input: { last4: intent.last4 } }],
      };
    case "unfreeze":
      return {
        text:
          `I can't unfreeze a card from here, and I haven't changed card •••• ${intent.last4}. ` +
          "To use it again, unfreeze it in the Kaboo app (Cards → Unfreeze). I can freeze a card, look up your balances, and send or move money.",
      };
    case "explain":
      return { reasoning: "A long answer: walk through the approval flow step by step.", text: EXPLAIN };
    case "undo":
      return undo(messages);
    case "hello":
      return {
        text: `Hi! I can check your balances, send or move money (you approve each payment) and freeze a card.${suggest("What's my balance?", "Send 42 to Bob", "Explain how approvals work")}`,
      };
    default: {
      const quoted = said.length > 40 ? `${said.slice(0, 39)}…` : said;
      return {
        text: `I can't help with “${quoted}” yet. I can look up your balances and payments, send or move money, and freeze a card.${suggest("What's my balance?", "Send 20 to Bob", "Move 100 to savings")}`,
      };
    }
  }
}

/** The rules, as a responder. Exported for tests of the phrases. */
export function respond({ lastUserText, lastToolResults, messages }: ScriptedRequest): ScriptedTurn {
  if (lastToolResults.length) {
    const all = calls(messages);
    // One answer for several results: each result's words, then one line of suggestions (the last's).
    const parts = lastToolResults.map((r) =>
      afterResult(
        all.find((c) => c.id === r.toolUseId),
        r,
      ).split("\n\nTry: "),
    );
    const tries = parts.findLast((p) => p.length > 1)?.[1];
    return { text: parts.map((p) => p[0]).join("\n\n") + (tries ? `\n\nTry: ${tries}` : "") };
  }
  if (messages.at(-1)?.role === "assistant") return { text: "Is there anything else I can do?" };
  return forIntent(intentInContext(messages), lastUserText.trim(), messages);
}
