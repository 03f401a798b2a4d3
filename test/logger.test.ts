import { afterEach, describe, expect, test, vi } from "vitest";
import { defaultLogger } from "../src/logger.js";

describe("defaultLogger", () => {
  afterEach(() => vi.restoreAllMocks());
  test("writes to the console, with the details only when there are some", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const debug = vi.spyOn(console, "debug").mockImplementation(() => undefined);
    defaultLogger.warn("a");
    defaultLogger.warn("b", { tool: "x" });
    defaultLogger.error("c", { code: 1 });
    defaultLogger.debug?.("d");
    expect(warn.mock.calls).toEqual([["a"], ["b", { tool: "x" }]]);
    expect(error.mock.calls).toEqual([["c", { code: 1 }]]);
    expect(debug.mock.calls).toEqual([["d"]]);
  });
});
