// Browser entry: leaves the outcome (or the error) on globalThis for the test to read.
import { runScenario } from "./scenario.js";

const g = globalThis as { __scenario?: unknown; __scenarioError?: string };
runScenario().then(
  (outcome) => {
    g.__scenario = outcome;
  },
  (error: unknown) => {
    g.__scenarioError =
      error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
  },
);
