/** The otel tests' gated bank thread: a transfer tool, a gate, and runs on fresh agents restored from JSON. */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import {
  Agent,
  InterruptState,
  MemoryAuditLog,
  MemoryExecutionLedger,
  ScriptedModel,
  type JsonValue,
} from "../../src/index.js";
import { InterruptHook, type GateRule, type SubjectFn } from "../../src/hooks/interrupt-hook.js";
import type { Tracing } from "./trace-fixtures.js";
import { transferTool } from "../agent/helpers.js";

/** The shared bank's payee-only transfer (answering "sent"), and what it sent. */
export { transferTool } from "../agent/helpers.js";

export const toRecipient: SubjectFn = (_, i) => ({
  key: `to:${(i as { to: string }).to}`,
  label: `transfers to ${(i as { to: string }).to}`,
});

/** A thread whose paused state goes through JSON between runs: every run is a fresh agent (a restart). */
export function thread(
  t: Tracing,
  o: {
    gate?: GateRule;
    ttlSeconds?: number;
    now?: () => number;
    audit?: boolean;
    ledger?: MemoryExecutionLedger;
    /** Register the tracing hook after the gate (its BeforeToolCall then never sees a call the gate pauses). */
    tracingLast?: boolean;
  } = {},
) {
  const { tool, sent } = transferTool();
  const ledger = o.ledger ?? new MemoryExecutionLedger();
  const audit = o.audit ? new MemoryAuditLog() : undefined;
  let saved: { messages: Agent["messages"]; interrupts: unknown } | undefined;
  const gate = () =>
    new InterruptHook([o.gate ?? { pattern: "transfer", subject: toRecipient }], {
      ...(o.ttlSeconds === undefined ? {} : { ttlSeconds: o.ttlSeconds }),
      ...(o.now ? { now: o.now } : {}),
    });
  const make = () => {
    const agent = new Agent({
      name: "bank",
      model: new ScriptedModel({
        script: ({ lastToolResults }) =>
          lastToolResults.length
            ? { text: "ok" }
            : { toolCalls: [{ name: "transfer", input: { to: "eve" }, id: "c1" }] },
      }),
      tools: [tool],
      hooks: o.tracingLast ? [gate(), t.hook] : [t.hook, gate()],
      ledger,
      ...(audit ? { audit } : {}),
    });
    if (saved) {
      agent.messages = saved.messages;
      agent.interruptState = InterruptState.fromJSON(saved.interrupts);
    }
    return agent;
  };
  const as = (principal: string, extra: Record<string, unknown> = {}) => ({
    invocationState: { threadId: "th", kabooPrincipal: principal, ...extra },
  });
  return {
    sent,
    audit,
    ledger,
    async ask(principal = "ann", extra: Record<string, unknown> = {}) {
      const agent = make();
      const r = await agent.invoke("pay eve", as(principal, extra));
      saved = JSON.parse(JSON.stringify({ messages: agent.messages, interrupts: agent.interruptState.toJSON() }));
      return r;
    },
    async answer(principal: string, response: JsonValue) {
      const agent = make();
      const open = agent.interruptState.pendingIds()[0] ?? "";
      const r = await agent.invoke([{ interruptResponse: { interruptId: open, response } }], as(principal));
      saved = JSON.parse(JSON.stringify({ messages: agent.messages, interrupts: agent.interruptState.toJSON() }));
      return r;
    },
  };
}

export const calls = (t: Tracing) => t.spans().filter((s) => s.name === "execute_tool transfer");
export const runs = (t: Tracing) => t.spans().filter((s) => s.name === "invoke_agent bank");
export const approvalAttrs = (s: ReadableSpan | undefined) =>
  Object.fromEntries(Object.entries(s?.attributes ?? {}).filter(([k]) => k.startsWith("kaboo.")));
