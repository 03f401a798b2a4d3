// What every implementation's scripted model says: turn i < n calls `echo` once, turn n answers.
// Text and tool input arrive in 16-character deltas, as kaboo's ScriptedModel sends them.

/** The turn at `i` of an `n`-turn loop: `{ call: { id, input } }` or `{ text }`. */
export function turn(i, n) {
  return i < n ? { call: { id: `call_${i}`, json: JSON.stringify({ text: `ping ${i}` }) } } : { text: "done" };
}

/** `text` in pieces of 16 characters. */
export function* pieces(text) {
  for (let i = 0; i < text.length; i += 16) yield text.slice(i, i + 16);
}

/** The usage every peer model reports per turn (kaboo's ScriptedModel estimates its own). */
export const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
