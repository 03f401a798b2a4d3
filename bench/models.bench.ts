/**
 * A 50,000-chunk stream through `eventsource-parser` alone and through each provider,
 * in one run. Each chunk arrives as its own read of an in-memory body (an injected
 * fetch returning a Response), the worst case for per-read overhead.
 *
 * Run: `npx vitest bench --run --project unit bench/models.bench.ts`. For a ratio that
 * holds up on a busy machine (interleaved rounds, best of each), run `node bench/models.mjs`.
 * Goal: each provider < 2x the bare parser.
 */
import { bench, describe } from "vitest";
import { AnthropicModel } from "../src/models/anthropic.js";
import { OpenAIChatModel } from "../src/models/openai.js";
import { anthropicChunks, bareParser, drain, fetchOf, openAIChunks } from "./models-fixtures.js";

const openai = openAIChunks();
const anthropic = anthropicChunks();
const oModel = new OpenAIChatModel({ model: "m", fetch: fetchOf(openai), retry: false });
const aModel = new AnthropicModel({ model: "m", maxTokens: 1, fetch: fetchOf(anthropic), retry: false });
const opts = { toolSpecs: [] };

describe(`OpenAI-format stream, ${openai.length} chunks`, () => {
  bench("eventsource-parser alone", () => bareParser(openai, false).then(() => {}));
  bench("eventsource-parser + JSON.parse", () => bareParser(openai, true).then(() => {}));
  bench("OpenAIChatModel.stream", () => drain(oModel.stream([], opts)).then(() => {}));
});

describe(`Anthropic-format stream, ${anthropic.length} chunks`, () => {
  bench("eventsource-parser alone", () => bareParser(anthropic, false).then(() => {}));
  bench("eventsource-parser + JSON.parse", () => bareParser(anthropic, true).then(() => {}));
  bench("AnthropicModel.stream", () => drain(aModel.stream([], opts)).then(() => {}));
});
