/**
 * The server grant stores' contract, as plain checks with no test framework, so the same checks run on
 * MemoryGrantStore (Node), DurableObjectGrantStore (workerd) and DenoKvGrantStore (Deno): grants are kept
 * per principal, read back by any instance, and revoked by id, by tool, by principal or all at once.
 */
import { grantId } from "../../src/grants/grant.js";
import type { ServerGrantStore } from "../../src/grants/store.js";
import { assert, runChecks, type ContractResult } from "./contract.js";

const tools = (grants: { tool: string }[]) => JSON.stringify(grants.map((g) => g.tool).sort());

const CHECKS: Record<string, (make: () => ServerGrantStore, id: () => string) => Promise<void>> = {
  async "a grant written by one instance is read by another, for its principal only"(make, id) {
    const [ann, eve] = [id(), id()];
    await make().grant({ tool: "pay", scope: "always", principal: ann });
    const other = make();
    assert(
      tools(await other.grantsFor("t", { principal: ann })) === '["pay"]',
      "ann's grant not read by another instance",
    );
    assert((await other.grantsFor("t", { principal: eve })).length === 0, "eve sees ann's grant");
    assert((await other.grantsFor("t")).length === 0, "a run with no principal sees ann's grant");
  },
  async "revoking by id in one instance holds in another at once"(make, id) {
    const ann = id();
    const granted = await make().grant({ tool: "pay", subjectKey: "to:bob", scope: "always", principal: ann });
    assert((await make().revoke(grantId(granted))) === 1, "revoke by id removed nothing");
    assert((await make().grantsFor("t", { principal: ann })).length === 0, "revoked grant still read");
  },
  async "revokePrincipal takes one tool, or every tool, of one person"(make, id) {
    const [ann, bob] = [id(), id()];
    const a = make();
    await a.grant({ tool: "pay", scope: "always", principal: ann });
    await a.grant({ tool: "search", scope: "thread", threadId: "t", principal: ann });
    await a.grant({ tool: "pay", scope: "always", principal: bob });
    assert((await make().revokePrincipal(ann, "pay")) === 1, "revoking ann's pay");
    assert(tools(await a.grantsFor("t", { principal: ann })) === '["search"]', "ann keeps search");
    assert((await make().revokePrincipal(ann)) === 1, "revoking all of ann");
    assert((await a.grantsFor("t", { principal: ann })).length === 0, "ann has nothing left");
    assert(tools(await a.grantsFor("t", { principal: bob })) === '["pay"]', "bob's grant survives");
    assert((await make().revokePrincipal(ann)) === 0, "revoking ann again removed something");
  },
  async "revokePrincipal without a person takes only grants that name no person"(make, id) {
    const [ann, tool] = [id(), `tool-${id()}`];
    const a = make();
    await a.grant({ tool, scope: "always" });
    await a.grant({ tool, scope: "always", principal: ann });
    assert((await make().revokePrincipal(undefined, tool)) === 1, "revoking the unnamed grant");
    assert(
      (await a.grantsFor("t")).every((g) => g.tool !== tool),
      "the unnamed grant is still read",
    );
    assert(tools(await a.grantsFor("t", { principal: ann })) === JSON.stringify([tool]), "ann's grant was taken");
    assert(tools(await make().grantsOf(ann)) === JSON.stringify([tool]), "grantsOf misses ann's grant");
  },
  async "list spans principals; a predicate revokes across them; revokeAll empties"(make, id) {
    const [ann, bob] = [id(), id()];
    const a = make();
    await a.grant({ tool: "pay", scope: "always", principal: ann });
    await a.grant({ tool: "pay", scope: "always", principal: bob });
    const mine = (await make().list()).filter((g) => g.principal === ann || g.principal === bob);
    assert(mine.length === 2, `list saw ${mine.length} of 2`);
    assert((await make().revoke((g) => g.principal === bob)) === 1, "predicate revoke");
    await make().revokeAll();
    assert((await a.grantsFor("t", { principal: ann })).length === 0, "revokeAll left ann's grant");
  },
  async "a grant with the longest subject and a long principal is kept, read back and revoked by id"(make, id) {
    // Deno KV refuses keys over 2 KiB: a grant's id holds its subject (up to 4,096 characters).
    const ann = `${id()}-${"p".repeat(900)}`;
    const subjectKey = `to:${"é".repeat(4093)}`;
    const granted = await make().grant({ tool: "pay", subjectKey, scope: "always", principal: ann });
    const read = await make().grantsFor("t", { principal: ann });
    assert(read.length === 1 && read[0]?.subjectKey === subjectKey, "the long grant was not read back");
    assert(
      (await make().list()).some((g) => g.principal === ann && g.subjectKey === subjectKey),
      "list across principals misses the long grant",
    );
    assert((await make().revoke(grantId(granted))) === 1, "revoke by id removed nothing");
    assert((await make().grantsFor("t", { principal: ann })).length === 0, "revoked long grant still read");
  },
};

/** The checks' names, in order. */
export const GRANT_CHECKS: readonly string[] = Object.keys(CHECKS);

/** Runs every check; two calls of `make` must share storage. */
export function runGrantChecks(make: () => ServerGrantStore): Promise<ContractResult[]> {
  const prefix = crypto.randomUUID();
  let n = 0;
  const id = () => `${prefix}-${n++}`;
  return runChecks(CHECKS, (check) => check(make, id));
}
