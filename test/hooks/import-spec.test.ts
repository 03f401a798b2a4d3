import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { splitImportSpec } from "../../src/hooks/import-spec.js";

describe("splitImportSpec", () => {
  test.each([
    ["./views.js#summary", { module: "./views.js", exportName: "summary" }],
    ["my_pkg.views:summary", { module: "my_pkg.views", exportName: "summary" }],
    ["./views.js", { module: "./views.js", exportName: "default" }],
    ["https://cdn.example/v.js", { module: "https://cdn.example/v.js", exportName: "default" }],
    ["https://cdn.example:8080/v.js", { module: "https://cdn.example:8080/v.js", exportName: "default" }],
    ["https://cdn.example/v.js:render", { module: "https://cdn.example/v.js", exportName: "render" }],
    ["file:///srv/v.js", { module: "file:///srv/v.js", exportName: "default" }],
    ["npm:lodash", { module: "npm:lodash", exportName: "default" }],
    ["npm:lodash:map", { module: "npm:lodash", exportName: "map" }],
    ["jsr:@std/path", { module: "jsr:@std/path", exportName: "default" }],
    ["node:path", { module: "node:path", exportName: "default" }],
  ])("%s", (spec, expected) => {
    expect(splitImportSpec(spec)).toEqual(expected);
  });

  test.each(["", "   ", "#x", "./v.js#", "./v.js#not-an-identifier", "./v.js#1x"])("refuses %j", (spec) => {
    expect(splitImportSpec(spec)).toBeUndefined();
  });

  test("any spec: undefined or a non-empty module with an identifier export (property)", () => {
    fc.assert(
      fc.property(fc.string(), (spec) => {
        const r = splitImportSpec(spec);
        if (r === undefined) return;
        expect(r.module.trim()).not.toBe("");
        expect(r.exportName).toMatch(/^[A-Za-z_$][\w$]*$/);
        expect(spec.startsWith(r.module)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
