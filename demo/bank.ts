/**
 * The demo's pretend bank: its tools, and a ledger kept in localStorage so balances and the
 * count of each tool's runs survive a reload and are shared by every tab (the e2e tests read
 * `window.__demo.counts` to prove an approved call ran exactly once).
 */
import * as z from "zod/v4";
import { formatMoney } from "./money.js";

const LEDGER_KEY = "kaboo-demo:ledger";

/** What the bank remembers. */
export interface Ledger {
  checking: number;
  savings: number;
  /** Runs per tool (a run that returned a result, not an approval request). */
  counts: Record<string, number>;
  history: { at: number; what: string; amount: number }[];
  frozen: string[];
  /** Requests the card service saw approved (ToolApprovalHook's onDecision), not yet used. */
  approvedRequests: string[];
  /** Results of the money-moving calls, by the `Idempotency-Key` the agent sent (`context.idempotencyKey`). */
  done: Record<string, string>;
}

const ledgerSchema = z.object({
  checking: z.number(),
  savings: z.number(),
  counts: z.record(z.string(), z.number()),
  history: z.array(z.object({ at: z.number(), what: z.string(), amount: z.number() })),
  frozen: z.array(z.string()),
  approvedRequests: z.array(z.string()),
  done: z.record(z.string(), z.string()).catch({}),
});

function fresh(): Ledger {
  return { checking: 2340.12, savings: 10500, counts: {}, history: [], frozen: [], approvedRequests: [], done: {} };
}

/** The ledger as stored; a missing or damaged one starts over. */
export function readLedger(): Ledger {
  try {
    const parsed = ledgerSchema.safeParse(JSON.parse(localStorage.getItem(LEDGER_KEY) ?? "null"));
    return parsed.success ? parsed.data : fresh();
  } catch {
    return fresh();
  }
}

/** Changes the stored ledger. */
export function update(change: (ledger: Ledger) => void): Ledger {
  const ledger = readLedger();
  change(ledger);
  localStorage.setItem(LEDGER_KEY, JSON.stringify(ledger));
  return ledger;
}

/** Counts one run of a tool (and changes the ledger with it). */
export function counted(name: string, change: (ledger: Ledger) => void = () => {}): Ledger {
  return update((l) => {
    l.counts[name] = (l.counts[name] ?? 0) + 1;
    change(l);
  });
}

/** Euros as people read them. */
export function eur(amount: number): string {
  return formatMoney(amount, "EUR");
}

/** People's names in titles ("bob" → "Bob"). */
export function person(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The most one call may move, in the currency of the call (the schemas below use them too). */
export const LIMITS = { transfer: 5000, move_money: 50000, wire_abroad: 20000 } as const;

/** Runs per tool, as stored. */
export function toolCounts(): Record<string, number> {
  return { ...readLedger().counts };
}

/** What each tool is called in the transcript and the event log. */
export const TOOL_LABELS: Record<string, string> = {
  get_balance: "Checking balances",
  get_statement: "Reading the statement",
  transfer: "Sending money",
  move_money: "Moving money between your accounts",
  wire_abroad: "Wiring abroad",
  freeze_card: "Freezing a card",
  set_theme: "Changing the theme",
};
