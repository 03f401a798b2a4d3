/**
 * What a person asks the scripted model, read from what they type: "transfer $5 to Alice please",
 * "send twenty to bob", "send 5 to bob and 10 to alice", "move 100 to savings", "wire 900 EUR to
 * Lena DE89…", "cancel that", "what did I just do?". A payment is read whole or not at all: when
 * the amount, the recipient or a wire's IBAN is missing, the intent says what to ask for, and
 * nothing is ever filled in for the person.
 */
import { AMOUNT, type Amount, readAmount, wordsToNumber } from "./money.js";
import { fixSlips } from "./spelling.js";

/** One payment, read whole. */
export type Payment =
  | { kind: "transfer"; to: string; amount: Amount }
  | { kind: "move"; to: "savings" | "checking"; amount: Amount }
  | { kind: "wire"; to: string; amount: Amount; iban: string | undefined };

/** A payment with something missing: what the model must ask before it proposes anything. */
export interface Need {
  kind: "need";
  action: "transfer" | "wire";
  missing: "amount" | "recipient" | "iban";
  to?: string;
  amount?: Amount;
}

/** One request the scripted model understands. */
export type Intent =
  | Payment
  | Need
  | { kind: "several"; payments: (Payment | Need)[] }
  /** "send 5 to bob and alice": each, or split? */
  | { kind: "split"; names: string[]; amount: Amount }
  | { kind: "theme"; theme: string }
  | { kind: "balance" }
  | { kind: "statement" }
  | { kind: "freeze"; last4: string }
  /** "unfreeze my card": the opposite of a freeze, which this assistant cannot do. */
  | { kind: "unfreeze"; last4: string }
  | { kind: "explain" }
  | { kind: "undo" }
  | { kind: "recap" }
  | { kind: "thanks" }
  /** "never mind" after the model asked about a payment: nothing will be sent. */
  | { kind: "dropped" }
  | { kind: "hello" }
  | { kind: "unknown" };

const NAME = "([a-z][a-z'-]{0,39})";
// Words before a name that are not one ("send 5 to my friend Bob", "move 100 to my savings").
const BEFORE_NAME = String.raw`(?:(?:my|our|the)\s+)?(?:(?:friend|colleague)\s+)?`;
const NOT_NAMES = new Set(["my", "the", "a", "an", "our", "me", "it", "that", "this", "money", "cash", "some", "them"]);
const FILLER = new Set(["please", "now", "today", "thanks", "too", "as", "well", "also"]);
const IBAN = String.raw`([A-Z]{2}\d{2}(?:\s?[A-Z0-9]){8,30})`;
const VERB = /\b(send|pay|transfer|give|move|put|wire)\b/i;
const SEND_TO = new RegExp(
  String.raw`\b(?:send|pay|transfer|give|move|put)\s+${AMOUNT}\s+(?:to|into)\s+${BEFORE_NAME}${NAME}`,
  "i",
);
const PAY_NAME = new RegExp(String.raw`\b(?:pay|send|give)\s+${NAME}\s+${AMOUNT}(?![\w€$£])`, "i");
const WIRE = new RegExp(String.raw`\bwire\s+${AMOUNT}\s+to\s+${NAME}(?:\s+(?:at\s+|iban\s+)?${IBAN})?`, "i");
/** "pay bob", "send money to bob", "wire to lena": a recipient and no amount. */
const CLAUSE_START = String.raw`^\s*(?:(?:please|can you|could you|i want to|i'd like to|i need to)\s+)*`;
const NO_AMOUNT = new RegExp(
  String.raw`${CLAUSE_START}(send|pay|transfer|wire)\s+(?:(?:some\s+)?(?:money|cash|funds)\s+)?(?:to\s+)?${BEFORE_NAME}${NAME}(?:\s+(?:some\s+)?(?:money|cash))?\s*(?:please|now)?[\s.!?]*$`,
  "i",
);
/** "send 50": an amount and no recipient. */
const NO_RECIPIENT = new RegExp(
  String.raw`${CLAUSE_START}(send|pay|transfer|give|wire)\s+${AMOUNT}\s*(?:please|now)?[\s.!?]*$`,
  "i",
);
const THEME =
  /\b(dark|light|ocean|forest|sunset)\s+(?:mode|theme)\b|\btheme\s+(?:to\s+)?(dark|light|ocean|forest|sunset)\b/i;
const UNDO =
  /^\s*(?:please\s+)?(?:undo|cancel|revert|reverse|take (?:it|that) back|never\s*mind)\b|\b(?:undo|cancel|revert|reverse)\s+(?:that|it|this|the last\b)/i;
const RECAP =
  /\bwhat (?:did|have) (?:i|you|we) (?:just )?(?:do|done|did)\b|\bwhat(?:'s| has)? (?:just )?happened\b|\b(?:recap|summary|summarise|summarize)\b|\bwhat did i (?:just )?(?:send|pay)\b/i;
const THANKS =
  /^\s*(?:(?:ok(?:ay)?|thanks?|thank you|thx|ty|cheers|great|cool|perfect|nice|good|got it|fine|bye|goodbye|that's all|that is all|all good)[\s,.!]*)+(?:(?:very|so)\s+much|a lot|for (?:that|your help|the help)|[\s,.!]|bye)*$/i;
const AMOUNT_GROUPS = 6;

function money(match: RegExpExecArray, at: number): Amount | undefined {
  return readAmount(match.slice(at, at + AMOUNT_GROUPS));
}

/** A word that can be a person's name: not a filler word nor a number in words ("five"). */
const isName = (word: string | undefined): word is string =>
  !!word && !NOT_NAMES.has(word.toLowerCase()) && !FILLER.has(word.toLowerCase()) && wordsToNumber(word) === undefined;
const iban = (text: string | undefined) => text?.replace(/\s+/g, "").toUpperCase();

/** "… to bob and alice": a second name the amount does not say how to share. */
function secondName(rest: string): string | undefined {
  const m = /^\s*(?:,|and|&|\+)\s*(?:,\s*)?(?:to\s+)?(?:my\s+)?([a-z][a-z'-]{0,39})\b[\s.!?]*$/i.exec(rest);
  const name = m?.[1]?.toLowerCase();
  return isName(name) ? name : undefined;
}

/** One clause: a payment, a payment with something missing, or `undefined` when it is no payment. */
function payment(said: string): Intent | undefined {
  let m = WIRE.exec(said);
  if (m) {
    const amount = money(m, 1);
    if (amount) {
      const to = m[7]!.toLowerCase();
      const account = iban(m[8]);
      if (!account) return { kind: "need", action: "wire", missing: "iban", to, amount };
      return { kind: "wire", to, amount, iban: account };
    }
  }
  m = SEND_TO.exec(said);
  if (m) {
    const amount = money(m, 1);
    const to = m[7]!.toLowerCase();
    if (amount && isName(to)) {
      const other = secondName(said.slice(m.index + m[0].length));
      if (other) return { kind: "split", names: [to, other], amount };
      if (to === "savings" || to === "checking") return { kind: "move", to, amount };
      return { kind: "transfer", to, amount };
    }
  }
  m = PAY_NAME.exec(said);
  if (m && isName(m[1])) {
    const amount = money(m, 2);
    if (amount) return { kind: "transfer", to: m[1]!.toLowerCase(), amount };
  }
  m = NO_AMOUNT.exec(said);
  if (m && isName(m[2]) && !["savings", "checking"].includes(m[2]!.toLowerCase())) {
    return {
      kind: "need",
      action: /wire/i.test(m[1]!) ? "wire" : "transfer",
      missing: "amount",
      to: m[2]!.toLowerCase(),
    };
  }
  m = NO_RECIPIENT.exec(said);
  if (m) {
    const amount = money(m, 2);
    if (amount)
      return { kind: "need", action: /wire/i.test(m[1]!) ? "wire" : "transfer", missing: "recipient", amount };
  }
  return undefined;
}

const isPayment = (i: Intent | undefined): i is Payment | Need =>
  !!i && (i.kind === "transfer" || i.kind === "move" || i.kind === "wire" || i.kind === "need");

/**
 * Several payments in one sentence ("send 5 to bob and 10 to alice, then 20 to carol"): the
 * sentence is cut at "and", "then" and commas, and a piece that is not a payment of its own joins
 * the one before ("one hundred and five" stays one amount). Pieces without a verb take the first one.
 */
function payments(said: string): Intent | undefined {
  const verb = VERB.exec(said)?.[1];
  if (!verb) return undefined;
  const pieces = said.split(/(\s*(?:,|;|\band then\b|\bthen\b|\band\b|&)\s*)/i);
  const clauses: { text: string; intent: Intent | undefined }[] = [];
  for (let i = 0; i < pieces.length; i += 2) {
    const piece = pieces[i]!;
    const ownVerb = VERB.test(piece);
    const own = payment(ownVerb ? piece : `${verb} ${piece}`);
    const last = clauses.at(-1);
    const lastDone = last !== undefined && isPayment(last.intent) && last.intent.kind !== "need";
    if (!last || (isPayment(own) && lastDone && (own.kind !== "need" || ownVerb))) {
      clauses.push({ text: piece, intent: own });
      continue;
    }
    last.text += (pieces[i - 1] ?? " ") + piece;
    const withVerb = VERB.test(last.text) ? last.text : `${verb} ${last.text}`;
    last.intent = payment(withVerb);
  }
  const found = clauses.map((c) => c.intent).filter((c) => c !== undefined);
  if (found.length <= 1) return found[0];
  const split = found.find((f) => f.kind === "split");
  if (split) return split;
  return { kind: "several", payments: found.filter(isPayment) };
}

/** Reads one message. */
export function readIntent(text: string): Intent {
  const said = fixSlips(text.trim());
  if (UNDO.test(said)) return { kind: "undo" };
  if (RECAP.test(said)) return { kind: "recap" };
  const pay = payments(said);
  if (pay) return pay;
  const theme = THEME.exec(said);
  if (theme) return { kind: "theme", theme: (theme[1] ?? theme[2]!).toLowerCase() };
  if (/\bbalances?\b|how much (?:do i have|money|is (?:in|on))/i.test(said)) return { kind: "balance" };
  if (/\bstatement|transactions|payments\b|spending|spent\b/i.test(said)) return { kind: "statement" };
  if (/\b(?:un-?freeze|unfrozen|defreeze|un-?block|unlock|thaw|reactivate)\b/i.test(said) && /\bcard\b/i.test(said))
    return { kind: "unfreeze", last4: /\b(\d{4})\b/.exec(said)?.[1] ?? "4821" };
  if (/\b(?:freeze|block|lost|stolen)\b/i.test(said) && /\bcard\b/i.test(said))
    return { kind: "freeze", last4: /\b(\d{4})\b/.exec(said)?.[1] ?? "4821" };
  if (/\bexplain|how does|how do(?:es)? (?:approvals?|it) work/i.test(said)) return { kind: "explain" };
  if (/^\s*(?:hi|hello|hey|help|what can you do|good (?:morning|afternoon|evening))\b/i.test(said))
    return { kind: "hello" };
  if (said.length <= 60 && THANKS.test(said)) return { kind: "thanks" };
  return { kind: "unknown" };
}

/**
 * The answer to the model's question about a payment with something missing ("How much should I
 * send to Bob?" → "20"): the payment with that filled in, or `undefined` when the reply does not
 * answer it. Only what the person typed is used.
 */
export function fillNeed(need: Need, reply: string): Payment | Need | undefined {
  const said = reply.trim();
  if (need.missing === "amount") {
    const m = new RegExp(
      String.raw`^(?:(?:make it|it's|it is|about|send|pay)\s+)?${AMOUNT}[\s.!]*(?:please)?[\s.!]*$`,
      "i",
    ).exec(said);
    const amount = m ? money(m, 1) : undefined;
    return amount ? complete({ ...need, amount }) : undefined;
  }
  if (need.missing === "recipient") {
    const m = new RegExp(String.raw`^(?:to\s+)?${BEFORE_NAME}${NAME}[\s.!]*(?:please)?[\s.!]*$`, "i").exec(said);
    const to = m?.[1]?.toLowerCase();
    return isName(to) ? complete({ ...need, to }) : undefined;
  }
  const account = iban(new RegExp(String.raw`(?:^|\s)${IBAN}(?:\s|[.!]|$)`, "i").exec(said)?.[1]);
  return account ? complete({ ...need }, account) : undefined;
}

function complete(need: Need, account?: string): Payment | Need {
  const { to, amount } = need;
  if (!to) return { ...need, missing: "recipient" };
  if (!amount) return { ...need, missing: "amount" };
  if (need.action === "transfer")
    return to === "savings" || to === "checking" ? { kind: "move", to, amount } : { kind: "transfer", to, amount };
  if (!account) return { kind: "need", action: "wire", missing: "iban", to, amount };
  return { kind: "wire", to, amount, iban: account };
}
