import { verifyEvents } from "@ag-ui/client";
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { runBody } from "../fixtures/run-input.js";
export async function collect(gen: AsyncIterable<BaseEvent>, verify = true): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  for await (const e of gen) events.push(e);
  if (verify) await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  return events;
}
/** A run's input on thread `t1` (unless `over` names another) with a fresh run id. */
export const input = (over: Partial<RunAgentInput> = {}): RunAgentInput => runBody("t1", over) as RunAgentInput;
export const snap = (events: BaseEvent[]) =>
  (events.find((e) => e.type === EventType.MESSAGES_SNAPSHOT) as unknown as { messages: RunAgentInput["messages"] })
    .messages;
export const stateOf = (events: BaseEvent[]) =>
  (events.find((e) => e.type === EventType.STATE_SNAPSHOT) as unknown as { snapshot: Record<string, unknown> })
    .snapshot;
export const interruptsOf = (events: BaseEvent[]) =>
  (events.at(-1) as unknown as { outcome: { interrupts: { id: string; toolCallId: string }[] } }).outcome.interrupts;
export function user(text: string) {
  return { id: crypto.randomUUID(), role: "user" as const, content: text };
}
