/** Proves the browser project runs in a real Chromium: IndexedDB through idb-keyval. */
import { createStore, del, get, set } from "idb-keyval";
import { expect, test } from "vitest";

test("idb-keyval round trip in a dedicated store, in a real browser", async () => {
  expect(navigator.userAgent).toMatch(/Chrome/);
  const store = createStore(`kaboo-smoke-${crypto.randomUUID()}`, "kv");
  const value = { grants: [{ tool: "transfer", scope: "thread" }], at: new Date(0) };
  await set("k", value, store);
  const read = await get<typeof value>("k", store);
  // IndexedDB stores a structured clone: equal, not the same object, Date kept as a Date.
  expect(read).toEqual(value);
  expect(read).not.toBe(value);
  expect(read?.at).toBeInstanceOf(Date);
  await del("k", store);
  expect(await get("k", store)).toBeUndefined();
});
