/**
 * Typing slips in the words the scripted model listens for ("balence", "statment", "tranfer"): a
 * word one edit away from one of them (two for long words) is read as that word. Names and short
 * words are left alone, so "Bob" never becomes anything else.
 */

const WORDS = [
  "balance",
  "balances",
  "statement",
  "transactions",
  "transfer",
  "savings",
  "checking",
  "freeze",
  "explain",
  "approvals",
];

/** Edits between two words (insert, delete, replace, swap two neighbours), stopping early past `max`. */
export function editDistance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** Words a slip away from a listened word that mean its opposite: never "put right" into it. */
const OPPOSITES = new Set(["unfreeze", "unfrozen", "defreeze"]);

function corrected(word: string): string {
  const lower = word.toLowerCase();
  if (lower.length < 5 || WORDS.includes(lower) || OPPOSITES.has(lower)) return word;
  const max = lower.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const w of WORDS) {
    const d = editDistance(lower, w, max);
    if (d < bestDistance) [best, bestDistance] = [w, d];
  }
  return best ?? word;
}

/** The text with slips in the words the model listens for put right; everything else as typed. */
export function fixSlips(text: string): string {
  return text.replace(/[A-Za-z]+/g, corrected);
}
