/**
 * What a person asks the scripted model, read from what they type: "transfer $5 to Alice please",
 * "send twenty to bob", "move 100 to savings", "wire 900 EUR to Lena", "cancel that", "undo".
 */
import { AMOUNT, type Amount, readAmount } from "./money.js";

/** One request the scripted model understands. */
export type Intent =
  | { kind: "transfer"; to: string; amount: Amount }
  | { kind: "move"; to: "savings" | "checking"; amount: Amount }
  | { kind: "wire"; to: string; amount: Amount; iban: string | undefined }
  | { kind: "theme"; theme: string }
  | { kind: "balance" }
  | { kind: "statement" }
  | { kind: "freeze"; last4: string }
  | { kind: "explain" }
  | { kind: "undo" }
  | { kind: "hello" }
  | { kind: "unknown" };

const NAME = "([a-z][a-z'-]{0,39})";
// Words before a name that are not one ("send 5 to my friend Bob", "move 100 to my savings").
const BEFORE_NAME = String.raw`(?:(?:my|our|the)\s+)?(?:(?:friend|colleague)\s+)?`;
const NOT_NAMES = new Set(["my", "the", "a", "an", "our", "me", "it", "that", "this"]);
const SEND_TO = new RegExp(
  String.raw`\b(?:send|pay|transfer|give|move|put)\s+${AMOUNT}\s+(?:to|into)\s+${BEFORE_NAME}${NAME}`,
  "i",
);
const PAY_NAME = new RegExp(String.raw`\b(?:pay|send|give)\s+${NAME}\s+${AMOUNT}(?![\w€$£])`, "i");
const WIRE = new RegExp(String.raw`\bwire\s+${AMOUNT}\s+to\s+${NAME}(?:\s+(?:at\s+)?([A-Z]{2}\d{2}[A-Z0-9]{8,30}))?`, "i");
const THEME = /\b(dark|light|ocean|forest|sunset)\s+(?:mode|theme)\b|\btheme\s+(?:to\s+)?(dark|light|ocean|forest|sunset)\b/i;
const UNDO =
  /^\s*(?:please\s+)?(?:undo|cancel|revert|reverse|take (?:it|that) back|never\s*mind)\b|\b(?:undo|cancel|revert|reverse)\s+(?:that|it|this|the last\b)/i;
const AMOUNT_GROUPS = 6;

function money(match: RegExpExecArray, at: number): Amount | undefined {
  return readAmount(match.slice(at, at + AMOUNT_GROUPS));
}

function payment(said: string): Intent | undefined {
  let m = WIRE.exec(said);
  if (m) {
    const amount = money(m, 1);
    if (amount) return { kind: "wire", to: m[7]!.toLowerCase(), amount, iban: m[8]?.toUpperCase() };
  }
  m = SEND_TO.exec(said);
  if (m) {
    const amount = money(m, 1);
    const to = m[7]!.toLowerCase();
    if (amount && !NOT_NAMES.has(to)) {
      if (to === "savings" || to === "checking") return { kind: "move", to, amount };
      return { kind: "transfer", to, amount };
    }
  }
  m = PAY_NAME.exec(said);
  if (m && !NOT_NAMES.has(m[1]!.toLowerCase())) {
    const amount = money(m, 2);
    if (amount) return { kind: "transfer", to: m[1]!.toLowerCase(), amount };
  }
  return undefined;
}

/** Reads one message. */
export function readIntent(text: string): Intent {
  const said = text.trim();
  if (UNDO.test(said)) return { kind: "undo" };
  const pay = payment(said);
  if (pay) return pay;
  const theme = THEME.exec(said);
  if (theme) return { kind: "theme", theme: (theme[1] ?? theme[2]!).toLowerCase() };
  if (/\bbalances?\b|how much (?:do i have|money)/i.test(said)) return { kind: "balance" };
  if (/\bstatement|transactions|payments\b|spending|spent\b/i.test(said)) return { kind: "statement" };
  if (/\b(?:freeze|block|lost|stolen)\b/i.test(said) && /\bcard\b/i.test(said))
    return { kind: "freeze", last4: /\b(\d{4})\b/.exec(said)?.[1] ?? "4821" };
  if (/\bexplain|how does|how do(?:es)? (?:approvals?|it) work/i.test(said)) return { kind: "explain" };
  if (/^\s*(?:hi|hello|hey|help|what can you do|good (?:morning|afternoon|evening))\b/i.test(said)) return { kind: "hello" };
  return { kind: "unknown" };
}
