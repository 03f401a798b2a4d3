/** What the runtime-proof scenario reports, and what a correct runner produces. */
import type { JsonValue } from "../../src/index.js";

/** What every runtime reports back; the test compares it with {@link expectedOutcome}. */
export interface ScenarioOutcome {
  userAgent: string;
  firstStop: string;
  interruptIds: string[];
  interruptReason: JsonValue | undefined;
  toolRunsWhilePaused: number;
  stateJsonVersion: number;
  resumedStop: string;
  toolRuns: number;
  toolInputs: JsonValue[];
  finalText: string;
  transcriptRoles: string[];
  /** A gate on the glob `tran@(s|z)fer*`: whether it paused the call (the glob engine loaded and matched). */
  globGateStop: string;
  /** The same gate's glob against a tool it does not cover: how that run ended. */
  globMissStop: string;
}

/** What a correct runner produces, whatever the runtime (userAgent aside). */
export const expectedOutcome: Omit<ScenarioOutcome, "userAgent"> = {
  firstStop: "interrupt",
  interruptIds: ["hook:beforeToolCall:call_1:approve"],
  interruptReason: { tool: "transfer", input: { to: "bob", amount: 42 } },
  toolRunsWhilePaused: 0,
  stateJsonVersion: 1,
  resumedStop: "endTurn",
  toolRuns: 1,
  toolInputs: [{ to: "bob", amount: 42 }],
  finalText: "Done: sent 42 to bob.",
  transcriptRoles: ["user", "assistant", "user", "assistant"],
  globGateStop: "interrupt",
  globMissStop: "endTurn",
};
