/**
 * What each gate's question is about (its subject): what a remembered yes covers ("transfers to
 * Bob", "moves to your savings account"). The page reads them too, to name the rule that let a call
 * run without asking.
 */
import { person } from "./bank.js";
import { formatMoney } from "./money.js";

/** A move's subject: the account it goes to. */
export function accountMove(_tool: string, input: unknown): { key: string; label: string } {
  const to = String((input as { to?: unknown }).to ?? "");
  return { key: `account:${to}`, label: `moves to your ${to} account` };
}

/** A transfer's subject: its recipient. */
export function recipient(_tool: string, input: unknown): { key: string; label: string } {
  const to = String((input as { to?: unknown }).to ?? "")
    .trim()
    .toLowerCase();
  return { key: `to:${to}`, label: `transfers to ${person(to)}` };
}

/** The subject of each gate with remembered answers: what a grant for the call covers. */
export const GATE_SUBJECTS: Partial<Record<string, (tool: string, input: unknown) => { key: string; label: string }>> =
  {
    transfer: recipient,
    move_money: accountMove,
  };

/** A wire's subject: its IBAN. */
export function wireSubject(_tool: string, input: unknown): { key: string; label: string } {
  const w = input as { to?: unknown; iban?: unknown; amount?: unknown; currency?: unknown };
  return {
    key: `iban:${String(w.iban)}`,
    label: `a wire of ${formatMoney(Number(w.amount), String(w.currency))} to ${person(String(w.to))}`,
  };
}
