/**
 * ContextHook: one model call's input rewrite on a 5,000-message conversation
 * with 2,000 tool results, against a plain array copy of the same messages.
 * Run: npx vitest bench --run bench/context-hook.bench.ts
 */
import { bench, describe } from "vitest";
import { Agent, AgentInitializedEvent, ScriptedModel, type Message } from "../src/index.js";
import { ContextHook } from "../src/hooks/context-hook.js";

function conversation(): Message[] {
  const out: Message[] = [];
  let results = 0;
  for (let i = 0; out.length < 5000; i++) {
    if (results < 2000 && i % 3 !== 2) {
      out.push({
        role: "assistant",
        content: [{ type: "toolUse", toolUseId: `t${i}`, name: "search", input: { q: `query ${i}` } }],
      });
      out.push({
        role: "user",
        content: [
          {
            type: "toolResult",
            toolUseId: `t${i}`,
            status: "success",
            content: [{ type: "text", text: `result ${i} `.repeat(150) }],
          },
        ],
      });
      results++;
    } else {
      out.push({ role: "user", content: [{ type: "text", text: `question ${i}` }] });
      out.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
    }
  }
  return out.slice(0, 5000);
}

const messages = conversation();
// The same conversation one tool turn later: alternating the two is the steady state of a run.
const later = [...messages, messages[0] as Message, messages[1] as Message];
const model = new ScriptedModel({ script: [] });

async function installed(hook: ContextHook) {
  const agent = new Agent({ model, hooks: [hook] });
  await agent.hooks.invoke(new AgentInitializedEvent(agent, {}));
  return agent;
}
const options = { clearTrigger: 10_000, keepLast: 3 };
const warm = await installed(new ContextHook(options));
let call = 1;
const rewrite = (agent: Agent, list: Message[]) =>
  agent.modelInput.apply(
    { messages: list, systemPrompt: "You are helpful.", toolSpecs: [] },
    { agent, invocationState: {}, callIndex: call++ },
  );
await rewrite(warm, messages); // the 1st call clears ~2,000 results
const alternating = await installed(new ContextHook(options));
await rewrite(alternating, messages);
let flip = false;

describe("one model call on 5,000 messages / 2,000 tool results", () => {
  bench("baseline: messages.slice()", () => {
    messages.slice();
  });
  bench("baseline: a plain copy of the messages (each message and its content array copied)", () => {
    messages.map((m) => ({ ...m, content: m.content.slice() }));
  });
  bench("ContextHook, 2nd+ call, ~2,000 results already cleared", async () => {
    await rewrite(warm, messages);
  });
  bench("ContextHook, next call after a new tool turn (steady state)", async () => {
    flip = !flip;
    await rewrite(alternating, flip ? later : messages);
  });
  bench("ContextHook, 1st call (cold caches, or fresh message objects)", async () => {
    await rewrite(await installed(new ContextHook(options)), messages);
  });
  bench("reference: structuredClone(messages) (a deep copy)", () => {
    structuredClone(messages);
  });
});
