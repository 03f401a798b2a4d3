import { expect, test } from "vitest";
import { sanitizeToolName } from "../../src/hooks/tool-name-sanitizer.js";

// Whitespace-split words of a name with no special tokens are each tried as a name: free text
// that merely mentions a registered tool is mapped to it (a guess, not a repair).
test("sanitizer: a sentence that mentions a tool is not mapped to it", () => {
  const r = sanitizeToolName("never call delete_account", ["delete_account", "get_balance"]);
  console.log(JSON.stringify(r));
  expect("name" in r).toBe(false);
});
