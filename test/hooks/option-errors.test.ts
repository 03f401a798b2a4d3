import { describe, expect, test } from "vitest";
import {
  EventPublisher,
  ForwardedPropsHook,
  InterruptHook,
  MaxToolCallsGuard,
  MCPCallMetaHook,
  parseImportSpec,
  StopGuard,
  stopGuardFromSignal,
  ToolApprovalHook,
} from "../../src/hooks/index.js";
import { KabooError, UserError } from "../../src/index.js";

// Every caller mistake in a hook's options is one error of the package's family, with a code.
const mistakes: [string, () => unknown][] = [
  ["EventPublisher without a callback", () => new EventPublisher("nope" as never, "a")],
  ["EventPublisher with maxThreads 0", () => new EventPublisher(() => undefined, "a", { maxThreads: 0 })],
  ["ForwardedPropsHook with an empty stateKey", () => new ForwardedPropsHook({ stateKey: "" })],
  ["InterruptHook with an unknown scope", () => new InterruptHook(["x"], { remember: "week" as never })],
  [
    "InterruptHook with a subject that is not a function",
    () => new InterruptHook([{ pattern: "x", subject: "to" as never }]),
  ],
  ["InterruptHook with ttlSeconds 0", () => new InterruptHook(["x"], { ttlSeconds: 0 })],
  ["MaxToolCallsGuard with a bare number", () => new MaxToolCallsGuard(5 as never)],
  ["MaxToolCallsGuard with maxCalls -1", () => new MaxToolCallsGuard({ maxCalls: -1 })],
  ["MCPCallMetaHook with a number provider", () => new MCPCallMetaHook(42 as never)],
  ["parseImportSpec of an empty spec", () => parseImportSpec("")],
  ["StopGuard without a function", () => new StopGuard(true as never)],
  ["stopGuardFromSignal without a signal", () => stopGuardFromSignal({} as never)],
  ["ToolApprovalHook with an unknown scope", () => new ToolApprovalHook({ remember: "forever" as never })],
  ["ToolApprovalHook with a non-function onDecision", () => new ToolApprovalHook({ onDecision: "x" as never })],
];

describe("option mistakes", () => {
  test.each(mistakes)("%s is a UserError with code USER_ERROR", (_, make) => {
    let thrown: unknown;
    try {
      make();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UserError);
    expect(thrown).toBeInstanceOf(KabooError);
    expect((thrown as UserError).code).toBe("USER_ERROR");
    expect((thrown as UserError).name).toBe("UserError");
  });
});
