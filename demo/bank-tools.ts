/**
 * The pretend bank's tools (see ./bank.ts for its ledger): their zod schemas (the dialog's form is
 * built from them too), the tools themselves, and the card service's side of ToolApprovalHook.
 * Loaded with the agent that runs them, not with the page.
 */
import * as z from "zod/v4";
import { type AgentTool, tool } from "kaboo-workflows";
import type { ToolDecision } from "kaboo-workflows/hooks";
import { counted, eur, type Ledger, LIMITS, person, readLedger, update } from "./bank.js";
import { CURRENCIES, type Currency, formatMoney } from "./money.js";

const DONE_LIMIT = 200;

/** How long the bank takes to book a payment (`?bankms=<ms>`, default 0): long enough to reload mid-call. */
const BANK_LATENCY_MS =
  typeof location === "undefined" ? 0 : Math.max(0, Number(new URLSearchParams(location.search).get("bankms")) || 0);

let answersLost = false;

/**
 * From now on the answers of the calls the bank is booking never arrive, as when the page goes away
 * before they do. For the e2e tests of a reload mid-call: on a loaded machine the old page can outlive
 * `page.reload()` by seconds and finish its call (the new page then watches it end, asks nothing),
 * which is right, but not the case those tests are about.
 */
export function loseBankAnswers(): void {
  answersLost = true;
}

/** Waits for the bank's answer, as a slow payment API would make the agent wait. */
function bankAnswer<T>(answer: () => T): T | Promise<T> {
  if (!BANK_LATENCY_MS) return answer();
  return new Promise((resolve) => setTimeout(() => answersLost || resolve(answer()), BANK_LATENCY_MS));
}

/**
 * The bank's side of an `Idempotency-Key` header, as a real payment API keeps it: the agent
 * passes `context.idempotencyKey` (stable for one call across retries, resumes and reloads), and
 * the same key again gets the first result back and moves nothing. The runner's execution ledger
 * already runs each call once; this is the second lock a bank would add on its side.
 */
function idempotent(name: string, key: string, act: (ledger: Ledger) => string): string {
  const earlier = readLedger().done[key];
  if (earlier !== undefined) return `${earlier} (Already done earlier; not repeated.)`;
  let text = "";
  counted(name, (l) => {
    text = act(l);
    l.done[key] = text;
    const ids = Object.keys(l.done);
    for (const id of ids.slice(0, Math.max(0, ids.length - DONE_LIMIT))) delete l.done[id];
  });
  return text;
}

/** What one unit of each currency costs in euros (the demo's fixed rates). */
const IN_EUROS: Record<Currency, number> = { EUR: 1, USD: 0.92, GBP: 1.17, CHF: 1.05 };

function inEuros(amount: number, currency: Currency = "EUR"): number {
  return Math.round(amount * IN_EUROS[currency] * 100) / 100;
}

/** The zod schema of each bank tool: the tools use them, and the dialog validates edits with them. */
export const toolSchemas = {
  get_balance: z.object({ account: z.enum(["checking", "savings"]).optional() }),
  get_statement: z.object({ account: z.enum(["checking", "savings"]).optional() }),
  transfer: z.object({
    to: z.string().trim().min(1).max(40),
    amount: z.number().positive().max(LIMITS.transfer),
    currency: z.enum(CURRENCIES).optional(),
  }),
  move_money: z.object({ to: z.enum(["savings", "checking"]), amount: z.number().positive().max(LIMITS.move_money) }),
  wire_abroad: z.object({
    to: z.string().trim().min(1).max(60),
    iban: z.string().regex(/^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/, "an IBAN such as DE89370400440532013000"),
    amount: z.number().positive().max(LIMITS.wire_abroad),
    currency: z.enum(["EUR", "USD", "GBP", "CHF"]),
  }),
  freeze_card: z.object({ last4: z.string().regex(/^\d{4}$/, "the card's last four digits") }),
} as const;

const MERCHANTS = [
  "Grocer & Co",
  "City Transit",
  "Coffee Lab",
  "Book Nook",
  "Power Utility",
  "Streamly",
  "Pharmacy 24",
  "Bistro Nord",
];

/** The bank's tools. `freeze_card` asks for approval itself (see {@link cardService}). */
export function bankTools(): AgentTool[] {
  return [
    tool({
      name: "get_balance",
      description: "Reads the balance of the checking and savings accounts. Read-only.",
      inputSchema: toolSchemas.get_balance,
      annotations: { readOnlyHint: true },
      callback: ({ account }) => {
        const l = counted("get_balance");
        if (account) return `${person(account)}: ${eur(l[account])}`;
        return `Checking: ${eur(l.checking)} · Savings: ${eur(l.savings)}`;
      },
    }),
    tool({
      name: "get_statement",
      description: "Lists the last 30 card payments of an account. Read-only; the result is long.",
      inputSchema: toolSchemas.get_statement,
      annotations: { readOnlyHint: true },
      callback: ({ account }) => {
        counted("get_statement");
        const lines = Array.from({ length: 30 }, (_, i) => {
          const day = String(28 - (i % 28)).padStart(2, "0");
          const amount = ((i * 37) % 90) + 3.45;
          return `2026-11-${day}  ${MERCHANTS[i % MERCHANTS.length]!.padEnd(14)}  -${eur(amount)}  card •••• 4821  ref TX${(9_100_000 + i * 7919).toString(36).toUpperCase()}`;
        });
        return `Statement (${account ?? "checking"}), last 30 payments:\n${lines.join("\n")}`;
      },
    }),
    tool({
      name: "transfer",
      description: "Sends money from checking to someone the person names (euros unless a currency is given).",
      inputSchema: toolSchemas.transfer,
      callback: ({ to, amount, currency }, context) =>
        bankAnswer(() =>
          idempotent("transfer", context.idempotencyKey, (l) => {
            const euros = inEuros(amount, currency);
            l.checking = Math.round((l.checking - euros) * 100) / 100;
            l.history.push({ at: Date.now(), what: `transfer to ${to}`, amount: euros });
            return `Sent ${formatMoney(amount, currency)} to ${person(to)}. Checking is now ${eur(l.checking)}.`;
          }),
        ),
    }),
    tool({
      name: "move_money",
      description: "Moves euros between the person's own checking and savings accounts.",
      inputSchema: toolSchemas.move_money,
      callback: ({ to, amount }, context) =>
        idempotent("move_money", context.idempotencyKey, (l) => {
          const from = to === "savings" ? "checking" : "savings";
          l[from] = Math.round((l[from] - amount) * 100) / 100;
          l[to] = Math.round((l[to] + amount) * 100) / 100;
          return `Moved ${eur(amount)} to ${to}. Checking: ${eur(l.checking)} · Savings: ${eur(l.savings)}.`;
        }),
    }),
    tool({
      name: "wire_abroad",
      description: "Sends an international wire to an IBAN. Approvals for it expire quickly.",
      inputSchema: toolSchemas.wire_abroad,
      callback: ({ to, iban, amount, currency }, context) =>
        idempotent("wire_abroad", context.idempotencyKey, (l) => {
          l.history.push({ at: Date.now(), what: `wire to ${to} (${iban})`, amount });
          return `Wired ${formatMoney(amount, currency)} to ${person(to)} (${iban}). It arrives in 1–2 business days.`;
        }),
    }),
    tool({
      name: "freeze_card",
      description: "Freezes a payment card. The card service asks the person to confirm first.",
      inputSchema: toolSchemas.freeze_card,
      callback: ({ last4 }, context) => {
        const requestId = `freeze-${context.toolUse.toolUseId}`;
        const ledger = readLedger();
        const ranBefore = ledger.done[context.idempotencyKey] !== undefined;
        if (!ranBefore && !ledger.approvedRequests.includes(requestId)) {
          // The service, not the agent, decides: it replies with a request instead of a result.
          return {
            kaboo_approval: {
              requestId,
              subject: { key: `card:${last4}`, label: `freezing card •••• ${last4}` },
              message: `Freeze card •••• ${last4}? Card payments stop until you unfreeze it in the app.`,
            },
          };
        }
        return idempotent("freeze_card", context.idempotencyKey, (l) => {
          l.approvedRequests = l.approvedRequests.filter((id) => id !== requestId);
          if (!l.frozen.includes(last4)) l.frozen.push(last4);
          return `Card •••• ${last4} is frozen. Payments with it are declined from now on.`;
        });
      },
    }),
  ];
}

/** The card service's side of ToolApprovalHook: it remembers what the person approved. */
export const cardService = {
  onDecision(decision: ToolDecision): void {
    if (decision.decision !== "approved" || !decision.requestId) return;
    const id = decision.requestId;
    update((l) => {
      if (!l.approvedRequests.includes(id)) l.approvedRequests.push(id);
    });
  },
};
