/**
 * The scripted model's payments: what it proposes for what the person asked, and only that. Every
 * payment of a sentence becomes its own call (each with its own approval); a limit is said in words
 * before anything is asked; a missing amount, recipient or IBAN is asked for, and the reply that
 * answers it completes the payment. Nothing is ever filled in for the person.
 */
import type { Message, ScriptedTurn } from "kaboo-workflows";
import { LIMITS, person } from "./bank.js";
import { fillNeed, type Intent, type Need, type Payment, readIntent } from "./intents.js";
import { formatMoney } from "./money.js";

/** The suggestions line the page shows as buttons. */
export function suggest(...prompts: string[]): string {
  return `\n\nTry: ${prompts.map((p) => `“${p}”`).join(" · ")}`;
}

type Call = NonNullable<ScriptedTurn["toolCalls"]>[number];

function call(p: Payment): Call {
  const { value, currency } = p.amount;
  switch (p.kind) {
    case "transfer":
      return {
        name: "transfer",
        input: { to: p.to, amount: value, ...(currency && currency !== "EUR" ? { currency } : {}) },
      };
    case "move":
      return { name: "move_money", input: { to: p.to, amount: value } };
    case "wire":
      return {
        name: "wire_abroad",
        input: { to: p.to, iban: p.iban, amount: value, currency: p.amount.currency ?? "EUR" },
      };
    default:
      return p satisfies never;
  }
}

/** "€5.00 to Bob", "€100.00 to savings". */
function said(p: Payment | Need): string {
  const to = p.to === "savings" || p.to === "checking" ? `your ${p.to}` : person(p.to ?? "someone");
  return p.amount ? `${formatMoney(p.amount.value, p.amount.currency)} to ${to}` : `money to ${to}`;
}

const LIMIT_OF = { transfer: LIMITS.transfer, move: LIMITS.move_money, wire: LIMITS.wire_abroad } as const;
const NOUN = { transfer: "transfer", move: "move between your accounts", wire: "wire" } as const;

/** Why a payment cannot be proposed as it is, in words, or `undefined` when it can. */
function overLimit(p: Payment): string | undefined {
  const limit = LIMIT_OF[p.kind];
  if (p.amount.value <= limit) return undefined;
  const currency = p.amount.currency ?? "EUR";
  return `${formatMoney(p.amount.value, currency)} is more than the ${formatMoney(limit, currency)} limit for one ${NOUN[p.kind]}`;
}

/** The question that completes a payment. */
export function ask(need: Need): ScriptedTurn {
  const to = person(need.to ?? "");
  if (need.missing === "amount")
    return {
      text: `How much should I ${need.action === "wire" ? "wire" : "send"} to ${to}? Nothing has been sent yet.`,
    };
  if (need.missing === "recipient")
    return {
      text: `Who should I send ${formatMoney(need.amount!.value, need.amount!.currency)} to? Nothing has been sent yet.`,
    };
  return {
    text: `What is ${to}'s IBAN? A wire needs the account it goes to, so I won't guess it. Type it and I'll prepare the wire of ${formatMoney(need.amount!.value, need.amount!.currency ?? "EUR")}.`,
  };
}

/** The turn for one or more payments: calls for all of them, or one clear question and no call. */
export function paymentTurn(items: (Payment | Need)[]): ScriptedTurn {
  const need = items.find((p): p is Need => p.kind === "need");
  if (need && items.length === 1) return ask(need);
  if (need)
    return {
      text: `I haven't sent anything yet: ${items.map(said).join(" and ")} — please say each payment with its amount and recipient${items.some((p) => p.kind === "wire" || (p.kind === "need" && p.action === "wire")) ? " (and the IBAN for a wire)" : ""}, for example “send 5 to bob and 10 to alice”.`,
    };
  const payments = items as Payment[];
  const over = payments.map(overLimit).filter((w) => w !== undefined);
  if (over.length) {
    const rest = payments.length > 1 ? " Nothing in this request was sent." : " Nothing was sent.";
    const first = payments.find(overLimit)!;
    const limit = LIMIT_OF[first.kind];
    const verb = first.kind === "wire" ? "wire" : first.kind === "move" ? "move" : "send";
    return {
      text: `I can't do that: ${over.join("; ")}.${rest} You can ${verb} up to ${formatMoney(limit, first.amount.currency ?? "EUR")} at a time.${suggest(`${person(verb)} ${limit} to ${person(first.to)}`)}`,
    };
  }
  const text =
    payments.length === 1
      ? opening(payments[0]!)
      : `${payments.length} payments: ${payments.map(said).join(" and ")}. You'll approve each one.`;
  return {
    ...(payments.length === 1 ? { reasoning: reasoningFor(payments[0]!) } : {}),
    text,
    toolCalls: payments.map(call),
  };
}

function opening(p: Payment): string {
  if (p.kind === "wire") return `I'll prepare a wire of ${said(p)}.`;
  if (p.kind === "move") return `Moving ${formatMoney(p.amount.value)} to ${p.to}.`;
  return `Sending ${said(p)}.`;
}

function reasoningFor(p: Payment): string {
  if (p.kind === "wire") return `An international wire of ${said(p)}. Wires need a fresh approval with a deadline.`;
  if (p.kind === "move") return "A move between the person's own accounts; it needs approval unless one was granted.";
  return `The person wants to send ${said(p)}. Transfers need approval for each recipient unless one was granted.`;
}

/** "send 5 to bob and alice": one clear question instead of guessing how to share it. */
export function splitTurn(names: string[], amount: { value: number; currency: string | undefined }): ScriptedTurn {
  const money = formatMoney(amount.value, amount.currency);
  const [a, b] = names.map(person);
  const n = amount.value;
  return {
    text: `Should I send ${money} to each of ${a} and ${b}, or ${money} in total? Nothing has been sent yet.${suggest(`Send ${n} to ${a} and ${n} to ${b}`)}`,
  };
}

function textOf(m: Message): string {
  return m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

/**
 * What the person's last message means in the conversation: a reply to the model's question about
 * a payment ("How much should I send to Bob?" → "20") completes that payment; anything the message
 * says on its own comes first.
 */
export function intentInContext(messages: Message[]): Intent {
  const said = messages.filter((m) => m.role === "user" && m.content.some((b) => b.type === "text"));
  let intent: Intent = { kind: "unknown" };
  let prev: Message | undefined;
  for (const m of said) {
    const own = readIntent(textOf(m));
    const asked = prev && intent.kind === "need" && !callsBetween(messages, prev, m);
    if (asked && own.kind === "undo") intent = { kind: "dropped" };
    else if (asked && (own.kind === "unknown" || own.kind === "need"))
      intent = fillNeed(intent as Need, textOf(m)) ?? own;
    else intent = own;
    prev = m;
  }
  return intent;
}

function callsBetween(messages: Message[], from: Message, to: Message): boolean {
  const between = messages.slice(messages.indexOf(from) + 1, messages.indexOf(to));
  return between.some((m) => m.content.some((b) => b.type === "toolUse" || b.type === "toolResult"));
}
