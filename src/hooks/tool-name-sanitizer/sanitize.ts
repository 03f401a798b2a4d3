/**
 * The pure part of the ToolNameSanitizer: map a garbled tool name to a registered one, or refuse.
 *
 * @module
 */

/** What {@link sanitizeToolName} decided. */
export type SanitizeResult =
  | { name: string }
  | {
      /** Registered names the model may have meant, closest first (empty when nothing is close). */
      candidates: string[];
      /** `true` when several registered names matched equally well, so none was picked. */
      ambiguous: boolean;
    };

// Special tokens of chat templates, ASCII (`<|channel|>`) or, after NFKC, DeepSeek's
// full-width ones (`<｜tool▁sep｜>`). They separate the name from channel words.
const SPECIAL_TOKEN = /<\|[^<>|]{0,64}\|>/g;
// Tag wrappers that Hermes/Qwen-style templates put around a call.
const WRAPPER_TAG = /<\/?(?:tool_call|tool_calls|tool|function_call|functioncall|invoke|call)>/gi;
const FUNCTION_TAG = /<function[=\s]+["']?([^<>"'\s]+)["']?\s*\/?>/gi;
// Namespaces models prepend: Harmony's `functions.`, code-style `tools.`, Gemini's `default_api.`.
const PREFIX = /^(?:functions|function|tools|tool|default_api)[.:]/i;
// Kimi-style call ids (`functions.get_weather:0`) end in `:<index>`.
const INDEX_SUFFIX = /:\d+$/;
const QUOTES = /^["'`\u2018\u2019\u201c\u201d]+|["'`\u2018\u2019\u201c\u201d]+$/g;
const TRAILING = /(?:\(\s*\)|[.,;:!?)\]}>])+$/;
const LEADING = /^[([{<]+/;
// Words that follow a channel/constrain token in Harmony headers; never a name on their own there.
const HEADER_WORDS = new Set([
  "analysis",
  "commentary",
  "final",
  "json",
  "assistant",
  "user",
  "system",
  "developer",
  "to",
]);
const MAX_NAME = 256;

/** Case- and separator-insensitive key: `Get-Weather`, `get_weather`, `getWeather` → `getweather`. */
export function canonicalToolName(name: string): string {
  return name.toLowerCase().replace(/[-_\s]+/g, "");
}

function clean(raw: string): string {
  let s = raw.trim();
  for (let i = 0; i < 4; i++) {
    const before = s;
    s = s.replace(QUOTES, "").trim();
    s = s.replace(LEADING, "").replace(TRAILING, "").trim();
    s = s.replace(QUOTES, "").trim();
    while (PREFIX.test(s)) s = s.replace(PREFIX, "");
    s = s.replace(INDEX_SUFFIX, "");
    if (s === before) break;
  }
  return s;
}

/** Candidate spellings hidden in a raw name, most literal first. */
function extractCandidates(raw: string): { primary: string[]; glued: string[] } {
  const normalized = raw.normalize("NFKC").slice(0, MAX_NAME);
  const text = normalized.replace(FUNCTION_TAG, " $1 ").replace(WRAPPER_TAG, " ");
  const hasTokens = text.search(SPECIAL_TOKEN) >= 0;
  // Words are tried one by one only inside framing the sanitizer recognises (channel tokens, tags):
  // a plain sentence that mentions a tool ("never call delete_account") is not a call to it.
  const framed = hasTokens || text !== normalized;
  const primary: string[] = [];
  const add = (s: string, isWholeRaw: boolean) => {
    const c = clean(s);
    if (!c) return;
    if (!isWholeRaw && HEADER_WORDS.has(c.toLowerCase())) return;
    if (!primary.includes(c)) primary.push(c);
  };
  const segments = text.split(SPECIAL_TOKEN);
  for (const [index, segment] of segments.entries()) {
    const recipient = /(?:^|\s)to=(\S+)/.exec(segment);
    if (recipient?.[1]) {
      // Harmony header: `commentary to=functions.x <|constrain|>json` names its recipient; the rest is framing.
      // A recipient under a namespace (`to=functions.to`) is a tool's name even when it is a header
      // word; a bare one (`to=assistant`) is a role, so header words are skipped there.
      add(recipient[1], PREFIX.test(recipient[1]));
      continue;
    }
    const words = segment.trim().split(/\s+/);
    // Header words follow a token; a lone word before the first token is where the name stands
    // (`final<|end|>` names a tool called `final` when one is registered).
    add(segment, (!hasTokens && segments.length === 1) || (index === 0 && words.length === 1));
    if (words.length > 1 && framed) for (const w of words) add(w, false);
  }
  // llama.cpp saw gpt-oss glue the constrain word onto the name (`shelljson`); only a fallback.
  const glued = primary.filter((c) => c.length > 4 && /json$/i.test(c)).map((c) => clean(c.slice(0, -4)));
  return { primary, glued: glued.filter(Boolean) };
}

function resolve(candidates: string[], registered: readonly string[], byKey: Map<string, string[]>): Set<string> {
  const out = new Set<string>();
  for (const c of candidates) {
    if (registered.includes(c)) out.add(c);
    for (const name of byKey.get(canonicalToolName(c)) ?? []) out.add(name);
  }
  return out;
}

/** Levenshtein distance, two rows. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length] as number;
}

/**
 * Registered names closest to what the model wrote, for a "did you mean" list.
 * @param limit - How many to return. Default 3.
 */
export function closestToolNames(raw: string, registered: readonly string[], limit = 3): string[] {
  const { primary } = extractCandidates(raw);
  const probes = (primary.length ? primary : [raw]).map(canonicalToolName).filter(Boolean);
  if (!probes.length) return [];
  const scored = registered.map((name) => {
    const key = canonicalToolName(name);
    const d = Math.min(...probes.map((p) => editDistance(p, key)));
    return { name, d, close: d <= Math.max(2, Math.floor(key.length / 3)) };
  });
  return scored
    .filter((s) => s.close)
    .sort((x, y) => x.d - y.d || x.name.localeCompare(y.name))
    .slice(0, limit)
    .map((s) => s.name);
}

/**
 * Maps a tool name as a model wrote it to a registered tool name, or refuses.
 *
 * Strips channel tokens (`<|channel|>commentary`, `<|constrain|>json`, Harmony
 * `to=functions.x` headers), namespace prefixes (`functions.`, `tools.`,
 * `default_api.`), `<tool_call>`/`<function=…>` wrappers, quotes and backticks,
 * whitespace, trailing punctuation and `()`, Kimi-style `:0` indexes, and
 * compares case- and `-`/`_`-insensitively. Guarantees:
 * - a registered name is returned unchanged;
 * - the result is always a registered name, or a refusal;
 * - when the cleaned text matches two or more registered names (e.g. `Edit`
 *   with both `edit` and `EDIT` registered, or `multi edit` with both `edit` and
 *   `multi_edit`), nothing is picked: the refusal lists them (`ambiguous: true`).
 *
 * Edit distance is only used to *suggest* names in a refusal, never to pick one.
 *
 * @param raw - The name from the model.
 * @param registeredNames - The agent's tool names.
 * @returns `{ name }` or `{ candidates, ambiguous }`.
 * @example
 * ```ts
 * sanitizeToolName("functions.get_weather<|channel|>commentary", ["get_weather"]); // { name: "get_weather" }
 * sanitizeToolName("get_wether", ["get_weather"]); // { candidates: ["get_weather"], ambiguous: false }
 * ```
 */
export function sanitizeToolName(raw: string, registeredNames: Iterable<string>): SanitizeResult {
  const registered = [...new Set(registeredNames)];
  if (typeof raw !== "string") return { candidates: [], ambiguous: false };
  if (registered.includes(raw)) return { name: raw };
  const byKey = new Map<string, string[]>();
  for (const name of registered) {
    const key = canonicalToolName(name);
    byKey.set(key, [...(byKey.get(key) ?? []), name]);
  }
  const { primary, glued } = extractCandidates(raw);
  for (const tier of [primary, glued]) {
    const found = resolve(tier, registered, byKey);
    if (found.size === 1) return { name: [...found][0] as string };
    if (found.size > 1) return { candidates: [...found].sort(), ambiguous: true };
  }
  return { candidates: closestToolNames(raw, registered), ambiguous: false };
}
