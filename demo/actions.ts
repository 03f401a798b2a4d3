/**
 * A tool call said the way a bank says it: the dialog's headline ("Send €42.00 to Bob?"), the
 * facts under it (To: Bob · Amount: €42.00), and the noun the assistant uses in its replies
 * ("the transfer", not "the transfer tool").
 */
import { person } from "./bank.js";
import { formatMoney } from "./money.js";

/** A call in words. */
export interface ActionWords {
  /** The question the dialog asks, e.g. "Send €42.00 to Bob?". */
  headline: string;
  /** The call's arguments as labelled, formatted facts. */
  facts: [label: string, value: string][];
}

const str = (v: unknown, fallback = "") => (typeof v === "string" && v.trim() ? v.trim() : fallback);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : Number.NaN);
const amountOf = (input: Record<string, unknown>) => formatMoney(num(input["amount"]), str(input["currency"], "EUR"));

/** The call in words; unknown tools get their arguments as they are. */
export function actionWords(tool: string, input: Record<string, unknown>): ActionWords {
  const to = person(str(input["to"], "someone"));
  switch (tool) {
    case "transfer":
      return {
        headline: `Send ${amountOf(input)} to ${to}?`,
        facts: [
          ["To", to],
          ["Amount", amountOf(input)],
          ["From", "Checking"],
        ],
      };
    case "move_money": {
      const from = input["to"] === "checking" ? "Savings" : "Checking";
      return {
        headline: `Move ${amountOf(input)} to ${str(input["to"], "savings")}?`,
        facts: [
          ["From", from],
          ["To", to],
          ["Amount", amountOf(input)],
        ],
      };
    }
    case "wire_abroad":
      return {
        headline: `Wire ${amountOf(input)} to ${to}?`,
        facts: [
          ["To", to],
          ["IBAN", str(input["iban"])],
          ["Amount", amountOf(input)],
        ],
      };
    case "freeze_card":
      return {
        headline: `Freeze card •••• ${str(input["last4"], "????")}?`,
        facts: [["Card", `•••• ${str(input["last4"])}`]],
      };
    default:
      return {
        headline: `Allow ${tool.replace(/_/g, " ")}?`,
        facts: Object.entries(input).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
      };
  }
}

/** What the assistant calls a tool's action in a sentence ("the transfer", "the wire"). */
export function actionNoun(tool: string): string {
  return (
    {
      transfer: "the transfer",
      move_money: "the move between your accounts",
      wire_abroad: "the wire",
      freeze_card: "freezing the card",
      set_theme: "the theme change",
    }[tool] ?? `the ${tool.replace(/_/g, " ")}`
  );
}

/**
 * The question asked when the page stopped while a call ran: "Did the transfer of €5.00 to Bob go
 * through?".
 */
export function outcomeQuestion(tool: string, input: Record<string, unknown>): string {
  const to = person(str(input["to"], "someone"));
  switch (tool) {
    case "transfer":
      return `Did the transfer of ${amountOf(input)} to ${to} go through?`;
    case "move_money":
      return `Did the move of ${amountOf(input)} to ${str(input["to"], "savings")} go through?`;
    case "wire_abroad":
      return `Did the wire of ${amountOf(input)} to ${to} go through?`;
    case "freeze_card":
      return `Did freezing card •••• ${str(input["last4"], "????")} go through?`;
    default:
      return `Did ${actionNoun(tool)} go through?`;
  }
}

/** What became of a call whose outcome was lost, once the person said, in words; else `undefined`. */
export function outcomeDecision(resultText: string): "went-through" | "cancelled" | undefined {
  if (/^The person confirmed that the call to .* already ran/.test(resultText)) return "went-through";
  if (/^The person chose not to run the call to .* again/.test(resultText)) return "cancelled";
  return undefined;
}
