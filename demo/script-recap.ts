/**
 * "What did I just do?": the scripted model answers from the conversation's own record, the calls
 * it proposed and what became of each (done, declined, expired, stopped, still waiting), newest
 * first. It never says more happened than the results show.
 */
import { type ScriptedTurn, toolResultText } from "kaboo-workflows";
import { actionWords } from "./actions.js";
import type { Call } from "./script.js";
import { suggest } from "./script-pay.js";

const LOOKUPS: Record<string, string> = {
  get_balance: "You checked your balances.",
  get_statement: "You looked at your statement.",
};

/** One call in a sentence, past tense. */
function line(c: Call): string {
  const what = actionWords(c.name, c.input).headline.replace(/\?$/, "");
  const lower = what.charAt(0).toLowerCase() + what.slice(1);
  if (!c.result) return `Waiting for your approval: ${lower}.`;
  const text = toolResultText(c.result.content);
  if (c.result.status === "success") return LOOKUPS[c.name] ?? text.split(/(?<=\.)\s/)[0] ?? text;
  if (/denied/i.test(text)) return `You declined: ${lower}. It did not happen.`;
  if (/expired/i.test(text)) return `The approval expired, so this did not happen: ${lower}.`;
  if (/stopped/i.test(text)) return `Stopped before it ran: ${lower}.`;
  return `This did not go through: ${lower}.`;
}

/** The recap turn for the conversation's calls (oldest first). */
export function recap(calls: readonly Call[]): ScriptedTurn {
  if (!calls.length)
    return {
      text: `Nothing yet: in this conversation I haven't looked anything up or moved any money.${suggest("What's my balance?")}`,
    };
  const recent = calls.slice(-5).reverse().map(line);
  const more = calls.length > 5 ? `\n\n(${calls.length - 5} earlier in this conversation.)` : "";
  return {
    text: `Here's what happened in this conversation, latest first:\n\n${recent.map((l) => `- ${l}`).join("\n")}${more}${suggest("What's my balance?")}`,
  };
}
