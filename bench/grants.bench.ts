/**
 * Node micro-benchmarks of the grant hot path (the Chromium IndexedDB figure is
 * test/grants/grant-lookup-ratio.browser.test.ts): validating 1,000 grants from
 * `forwardedProps`, verifying signatures, and one lookup by scan vs by index.
 */
import { bench, describe } from "vitest";
import {
  filterVerified,
  findGrant,
  findVerifiedGrant,
  indexGrants,
  parseGrants,
  signGrant,
} from "../src/grants/index.js";
import type { Grant } from "../src/grants/index.js";

const N = 1_000;
const grants: Grant[] = Array.from({ length: N }, (_, i) =>
  i % 2
    ? { tool: `tool_${i % 50}`, subjectKey: `subject:${i}`, scope: "always", grantedAt: 1 }
    : { tool: `tool_${i % 50}`, subjectKey: `subject:${i}`, scope: "thread", threadId: `t${i % 10}`, grantedAt: 1 },
);
const wire: unknown = JSON.parse(JSON.stringify(grants));
const signed = await Promise.all(grants.map((g) => signGrant(g, "bench secret")));
const index = indexGrants(grants);
const query = { tool: "tool_48", subjectKey: "subject:998", threadId: "t8", now: 2 };

describe("1,000 grants", () => {
  bench("parseGrants (zod, every entry)", () => {
    parseGrants(wire);
  });
  bench("filterVerified (HMAC-SHA256 each)", async () => {
    await filterVerified(signed, "bench secret");
  });
  bench("findVerifiedGrant (verifies covering grants only)", async () => {
    await findVerifiedGrant(signed, query, "bench secret");
  });
  bench("findGrant, scan", () => {
    findGrant(grants, query);
  });
  bench("findGrant, prebuilt index", () => {
    findGrant(index, query);
  });
  bench("indexGrants + find", () => {
    indexGrants(grants).find(query);
  });
});
