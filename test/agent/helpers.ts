/** Shared test helpers for the runner tests (Node-only code is fine here). */
import { expect } from "vitest";
import * as z from "zod/v4";
import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterToolCallEvent,
  BeforeInvocationEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  MessageAddedEvent,
  tool,
  type HookProvider,
  type HookRegistry,
  type Message,
} from "../../src/index.js";
import { newBank, transferTool as bankTransfer } from "../fixtures/bank.js";

/** Records the type of every runner event it sees (with the tool name for tool events). */
export class Recorder implements HookProvider {
  readonly log: string[] = [];
  registerHooks(r: HookRegistry): void {
    const push = (s: string) => this.log.push(s);
    r.addCallback(BeforeInvocationEvent, () => push("BeforeInvocation"));
    r.addCallback(BeforeModelCallEvent, () => push("BeforeModelCall"));
    r.addCallback(AfterModelCallEvent, () => push("AfterModelCall"));
    r.addCallback(BeforeToolCallEvent, (e) => push(`BeforeToolCall:${e.toolUse.name}`));
    r.addCallback(AfterToolCallEvent, (e) => push(`AfterToolCall:${e.toolUse.name}`));
    r.addCallback(MessageAddedEvent, (e) => push(`MessageAdded:${e.message.role}`));
    r.addCallback(AfterInvocationEvent, () => push("AfterInvocation"));
  }
}

/** A tool that echoes its `x` argument; counts its calls. */
export function echoTool(name = "echo") {
  const calls: unknown[] = [];
  const t = tool({
    name,
    description: `echo ${name}`,
    inputSchema: z.object({ x: z.number() }),
    callback: ({ x }) => {
      calls.push(x);
      return `${name}:${x}`;
    },
  });
  return { tool: t, calls };
}

/**
 * The shared bank's `transfer` alone, answering "sent": `sent` lists every input it ran with (the
 * thing exactly-once tests count).
 */
export function transferTool() {
  const bank = newBank();
  return { tool: bankTransfer(bank, { payeeOnly: true, result: () => "sent" }), sent: bank.transfers };
}

/**
 * The transcript invariant: every toolUse is answered by a toolResult with the same id in the very
 * next message (a user message holding only results), every toolResult answers a toolUse of the
 * message just before it, and roles never repeat around a tool exchange.
 */
export function expectConsistentTranscript(messages: readonly Message[]): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const uses = m.content.filter((b) => b.type === "toolUse");
    const results = m.content.filter((b) => b.type === "toolResult");
    if (uses.length) {
      expect(m.role).toBe("assistant");
      const next = messages[i + 1];
      expect(next, `toolUse in message ${i} has no following result message`).toBeDefined();
      expect(next!.role).toBe("user");
      const ids = next!.content.flatMap((b) => (b.type === "toolResult" ? [b.toolUseId] : []));
      expect(new Set(ids)).toEqual(new Set(uses.map((u) => (u as { toolUseId: string }).toolUseId)));
      expect(ids.length).toBe(uses.length);
    }
    if (results.length) {
      expect(m.role).toBe("user");
      const prev = messages[i - 1];
      expect(prev?.role).toBe("assistant");
      const useIds = prev!.content.flatMap((b) => (b.type === "toolUse" ? [b.toolUseId] : []));
      for (const r of results) expect(useIds).toContain((r as { toolUseId: string }).toolUseId);
    }
  }
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
