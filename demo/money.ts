/**
 * Money as people type it and read it: amounts with currency signs or codes ("$5", "42 €",
 * "900 eur"), in words ("twenty", "one hundred and five", "a hundred"), and amounts written back
 * in words the way a bank would ("€42.00").
 */

/** The currencies the bank knows. */
export const CURRENCIES = ["EUR", "USD", "GBP", "CHF"] as const;
/** One of {@link CURRENCIES}. */
export type Currency = (typeof CURRENCIES)[number];

const SIGNS: Record<string, Currency> = { "€": "EUR", $: "USD", "£": "GBP" };
const CODES: Record<string, Currency> = {
  eur: "EUR",
  euro: "EUR",
  euros: "EUR",
  usd: "USD",
  dollar: "USD",
  dollars: "USD",
  gbp: "GBP",
  pound: "GBP",
  pounds: "GBP",
  chf: "CHF",
  franc: "CHF",
  francs: "CHF",
};

const UNITS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Record<string, number> = { hundred: 100, thousand: 1000 };
// Longest first, so "seventy" is not read as "seven".
const WORD = `(?:${[...Object.keys(UNITS), ...Object.keys(SCALES)].sort((x, y) => y.length - x.length).join("|")})\\b`;

/** A number in words ("one hundred and twenty-five" → 125); `undefined` when it is not one. */
export function wordsToNumber(text: string): number | undefined {
  const words = text
    .toLowerCase()
    .split(/[\s-]+/)
    .filter((w) => w && w !== "and");
  if (!words.length) return undefined;
  let total = 0;
  let current = 0;
  for (const w of words) {
    if (w in UNITS) current += UNITS[w]!;
    else if (w === "hundred") current = (current || 1) * 100;
    else if (w === "thousand") {
      total += (current || 1) * 1000;
      current = 0;
    } else return undefined;
  }
  return total + current;
}

/**
 * The pattern of one amount, for building phrase patterns. Its groups, in order: a sign before,
 * a code before, digits, words, a sign or code after.
 */
export const AMOUNT = String.raw`(?:([€$£])\s*|(eur|usd|gbp|chf)\s+)?(?:(\d[\d,]*(?:\.\d{1,2})?)|(${WORD}(?:[\s-]+(?:and\s+)?${WORD})*))(?:\s*([€$£])|\s+(eur(?:os?)?|euros|usd|dollars?|gbp|pounds?|chf|francs?)\b)?`;

/** An amount read from the groups of {@link AMOUNT}. */
export interface Amount {
  value: number;
  /** The currency the person named, if any. */
  currency: Currency | undefined;
}

/** Reads the groups {@link AMOUNT} captured (starting at `groups[0]`). */
export function readAmount(groups: readonly (string | undefined)[]): Amount | undefined {
  const [signBefore, codeBefore, digits, words, after, codeAfter] = groups;
  const value =
    digits !== undefined ? Number(digits.replace(/,(?=\d{3}\b)/g, "").replace(",", ".")) : wordsToNumber(words ?? "");
  if (value === undefined || !Number.isFinite(value) || value <= 0) return undefined;
  const mark = signBefore ?? after ?? codeBefore ?? codeAfter;
  const currency = mark ? (SIGNS[mark] ?? CODES[mark.toLowerCase()]) : undefined;
  return { value, currency };
}

/** An amount as people read it: "€42.00", "$5.00", "CHF 900.00". */
export function formatMoney(amount: number, currency: string = "EUR"): string {
  try {
    return new Intl.NumberFormat("en-IE", { style: "currency", currency, currencyDisplay: "narrowSymbol" }).format(
      amount,
    );
  } catch {
    return `${amount} ${currency}`;
  }
}
