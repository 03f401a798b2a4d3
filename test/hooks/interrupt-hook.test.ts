import { describe, expect, test } from "vitest";
import { InterruptHook } from "../../src/hooks/interrupt-hook.js";
import { approvalDecisions } from "../../src/hooks/approval/run.js";
import { signGrant } from "../../src/grants/signing.js";
import type { Grant } from "../../src/grants/grant.js";
import { UnknownInterruptIdError, UserError } from "../../src/index.js";
import type { ApprovalRequest as ApprovalRequestLike, ApprovalScope } from "../../src/hooks/approval/request.js";
import { PRINCIPAL_KEY } from "../../src/agent/run-context.js";
import { answer, bank, callsThenAnswers, newAgent, silentLogger } from "./approval-fixtures.js";
import { hostState } from "./host-state.js";

const toRecipient = (_: string, input: unknown) => {
  const to = (input as { to: string }).to;
  return { key: `to:${to}`, label: `transfers to ${to}` };
};

describe("InterruptHook construction", () => {
  test("an unknown scope is a UserError naming the allowed scopes", () => {
    expect(() => new InterruptHook(["x"], { remember: "forever" as never })).toThrow(/once, thread, always/);
    expect(() => new InterruptHook([{ pattern: "x", remember: "week" as never }])).toThrow(UserError);
  });
  test("a subject that is not a function is a UserError; an empty pattern is refused", () => {
    expect(() => new InterruptHook([{ pattern: "x", subject: "to" as never }])).toThrow(UserError);
    expect(() => new InterruptHook([{ pattern: "" }])).toThrow(/pattern/);
  });
  test("the first matching entry applies, globs included", async () => {
    const hook = new InterruptHook([{ pattern: "merchant___pay", remember: "always" }, "merchant___*"], {
      remember: "thread",
    });
    expect((await hook.ruleFor("merchant___pay"))?.remember).toBe("always");
    expect((await hook.ruleFor("merchant___refund"))?.remember).toBe("thread");
    expect(await hook.ruleFor("transfer")).toBeUndefined();
  });
});

describe("asking", () => {
  test("a gated call pauses with a request describing it; ungated tools run", async () => {
    const b = bank();
    const agent = newAgent(
      b,
      [new InterruptHook([{ pattern: "transfer", subject: toRecipient }], { agentName: "bank" })],
      callsThenAnswers([
        { name: "balance", input: {} },
        { name: "transfer", input: { to: "alice", amount: 5 } },
      ]),
    );
    const r = await agent.invoke("pay alice", { invocationState: hostState() });
    expect(r.stopReason).toBe("interrupt");
    expect(b.balances.length).toBe(1);
    expect(b.transfers).toEqual([]);
    expect(r.interrupts).toHaveLength(1);
    const i = r.interrupts[0]!;
    expect(i.id).toBe("hook:beforeToolCall:call_2:bank:kaboo_approval");
    const reason = i.reason as unknown as ApprovalRequestLike;
    expect(reason).toMatchObject({
      kind: "tool_approval",
      agent: "bank",
      tool: "transfer",
      toolUseId: "call_2",
      input: { to: "alice", amount: 5 },
      subject: { key: "to:alice", label: "transfers to alice" },
      scopes: ["once"],
    });
    expect(reason.expiresAt).toBeUndefined();
  });

  test("approved runs the call exactly once; the same resume again is refused", async () => {
    const b = bank();
    const agent = newAgent(
      b,
      [new InterruptHook(["transfer"])],
      callsThenAnswers([{ name: "transfer", input: { to: "bob", amount: 1 } }]),
    );
    const r1 = await agent.invoke("go", { invocationState: hostState() });
    const resume = [answer(r1.interrupts[0]!.id, { approved: true })];
    const r2 = await agent.invoke(resume, { invocationState: hostState() });
    expect(r2.stopReason).toBe("endTurn");
    expect(b.transfers).toEqual([{ to: "bob", amount: 1 }]);
    await expect(agent.invoke(resume)).rejects.toBeInstanceOf(UnknownInterruptIdError);
    expect(b.transfers).toHaveLength(1);
  });

  test.each([
    [{ approved: false }, /denied/],
    [{ approved: true, status: "cancelled" }, /skipped/],
    [{ status: "denied" }, /denied/],
    [{ approved: "yes" }, /could not be read/],
    [42, /could not be read/],
  ])("answer %j does not run the call and the model reads why", async (response, note) => {
    const b = bank();
    const log = silentLogger();
    const agent = newAgent(
      b,
      [new InterruptHook(["transfer"], { logger: log })],
      callsThenAnswers([{ name: "transfer", input: { to: "bob", amount: 1 } }]),
    );
    const r1 = await agent.invoke("go");
    await agent.invoke([answer(r1.interrupts[0]!.id, response)]);
    expect(b.transfers).toEqual([]);
    const result = agent.messages.flatMap((m) => m.content).find((c) => c.type === "toolResult");
    expect(result).toMatchObject({ status: "error" });
    expect(JSON.stringify(result)).toMatch(note);
  });

  test("an answer after expiresAt is treated as expired; a request that lost its deadline too", async () => {
    let now = 1_000_000;
    for (const tamper of [false, true]) {
      const b = bank();
      const agent = newAgent(
        b,
        [new InterruptHook(["transfer"], { ttlSeconds: 60, now: () => now })],
        callsThenAnswers([{ name: "transfer", input: { to: "bob", amount: 1 } }]),
      );
      const r1 = await agent.invoke("go");
      const reason = r1.interrupts[0]!.reason as unknown as ApprovalRequestLike;
      expect(reason.expiresAt).toBe(new Date(now + 60_000).toISOString());
      if (tamper) {
        // A client that strips the deadline from its snapshot does not get an unbounded request.
        const stored = agent.interruptState.interrupts.get(r1.interrupts[0]!.id)!;
        delete (stored.reason as Record<string, unknown>).expiresAt;
      } else now += 61_000;
      await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true })]);
      expect(b.transfers).toEqual([]);
      expect(JSON.stringify(agent.messages)).toMatch(/expired/);
    }
  });

  test("within the TTL the approval runs the call", async () => {
    let now = 0;
    const b = bank();
    const agent = newAgent(
      b,
      [new InterruptHook(["transfer"], { ttlSeconds: 60, now: () => now })],
      callsThenAnswers([{ name: "transfer", input: { to: "bob", amount: 1 } }]),
    );
    const r1 = await agent.invoke("go");
    now += 59_000;
    await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true })]);
    expect(b.transfers).toHaveLength(1);
  });

  test("skipReadOnly lets readOnlyHint tools run without asking; without it they ask", async () => {
    for (const skipReadOnly of [true, false]) {
      const b = bank();
      const agent = newAgent(
        b,
        [new InterruptHook(["*"], { skipReadOnly })],
        callsThenAnswers([{ name: "balance", input: {} }]),
      );
      const r = await agent.invoke("balance?");
      expect(r.stopReason).toBe(skipReadOnly ? "endTurn" : "interrupt");
      expect(b.balances.length).toBe(skipReadOnly ? 1 : 0);
    }
  });

  test("a subject of null needs no approval; invalid input is never put to a person", async () => {
    const b = bank();
    const small = (_: string, i: unknown) => ((i as { amount: number }).amount < 10 ? null : "big transfers");
    const agent = newAgent(
      b,
      [new InterruptHook([{ pattern: "transfer", subject: small }])],
      callsThenAnswers([
        { name: "transfer", input: { to: "a", amount: 5 } },
        { name: "transfer", input: { to: "", amount: -1 } },
      ]),
    );
    const r = await agent.invoke("go");
    expect(r.stopReason).toBe("endTurn");
    expect(b.transfers).toEqual([{ to: "a", amount: 5 }]);
    expect(JSON.stringify(agent.messages)).toMatch(/Invalid input for tool/);
  });

  test("a subject function that throws still asks, and offers only this call", async () => {
    const b = bank();
    const log = silentLogger();
    const hook = new InterruptHook(
      [
        {
          pattern: "transfer",
          remember: "always",
          subject: () => {
            throw new Error("boom");
          },
        },
      ],
      { logger: log },
    );
    const agent = newAgent(b, [hook], callsThenAnswers([{ name: "transfer", input: { to: "a", amount: 5 } }]));
    const r = await agent.invoke("go", { invocationState: hostState({ grants: [], publishes: true }) });
    expect(r.stopReason).toBe("interrupt");
    expect((r.interrupts[0]!.reason as unknown as ApprovalRequestLike).scopes).toEqual(["once"]);
    expect(log.lines.some((l) => l.level === "error")).toBe(true);
  });

  test("concurrent gated calls each get their own request; answering all resumes once", async () => {
    const b = bank();
    const agent = newAgent(
      b,
      [new InterruptHook(["transfer"])],
      callsThenAnswers([
        { name: "transfer", input: { to: "a", amount: 1 } },
        { name: "transfer", input: { to: "b", amount: 2 } },
        { name: "balance", input: {} },
      ]),
    );
    const r1 = await agent.invoke("go");
    expect(r1.interrupts.map((i) => i.id).sort()).toEqual([
      "hook:beforeToolCall:call_1:kaboo_approval",
      "hook:beforeToolCall:call_2:kaboo_approval",
    ]);
    expect(b.balances.length).toBe(1);
    const r2 = await agent.invoke(r1.interrupts.map((i) => answer(i.id, { approved: i.id.includes("call_1") })));
    expect(r2.stopReason).toBe("endTurn");
    expect(b.transfers).toEqual([{ to: "a", amount: 1 }]);
    expect(b.balances.length).toBe(1);
  });
});

describe("scopes offered", () => {
  test("only once unless the host remembers and publishes; capped by the rule", async () => {
    const cases: [Parameters<typeof hostState>[0], string[]][] = [
      [{}, ["once"]],
      [{ grants: [] }, ["once"]],
      [{ publishes: true }, ["once"]],
      [{ grants: [], publishes: true }, ["once", "thread"]],
    ];
    for (const [host, scopes] of cases) {
      const b = bank();
      const agent = newAgent(
        b,
        [new InterruptHook([{ pattern: "transfer", remember: "thread" }], { remember: "always" })],
        callsThenAnswers([{ name: "transfer", input: { to: "a", amount: 1 } }]),
      );
      const r = await agent.invoke("go", { invocationState: hostState(host) });
      expect((r.interrupts[0]!.reason as unknown as ApprovalRequestLike).scopes).toEqual(scopes);
    }
  });

  test("'always' never grants more than was offered", async () => {
    const b = bank();
    const agent = newAgent(
      b,
      [new InterruptHook([{ pattern: "transfer", remember: "thread", subject: toRecipient }])],
      callsThenAnswers([{ name: "transfer", input: { to: "a", amount: 1 } }]),
    );
    const r1 = await agent.invoke("go", { invocationState: hostState({ grants: [], publishes: true }) });
    const state = hostState({ grants: [], publishes: true });
    await agent.invoke([answer(r1.interrupts[0]!.id, { approved: true, scope: "always" })], { invocationState: state });
    expect(approvalDecisions(state)).toEqual([
      expect.objectContaining({
        decision: "approved",
        scope: "thread",
        tool: "transfer",
        subject: { key: "to:a", label: "transfers to a" },
      }),
    ]);
  });
});

describe("remembered grants", () => {
  const grant = (g: Partial<Grant>): Grant => ({ tool: "transfer", scope: "always", grantedAt: 1, ...g }) as Grant;
  const run = async (
    grants: unknown[],
    opts: { secret?: string; threadId?: string; to?: string; remember?: ApprovalScope; principal?: string } = {},
  ) => {
    const b = bank();
    const log = silentLogger();
    const hook = new InterruptHook(
      [{ pattern: "transfer", subject: toRecipient, remember: opts.remember ?? "always" }],
      {
        logger: log,
        ...(opts.secret ? { secret: opts.secret } : {}),
      },
    );
    const agent = newAgent(
      b,
      [hook],
      callsThenAnswers([{ name: "transfer", input: { to: opts.to ?? "alice", amount: 1 } }]),
    );
    const invocationState = hostState({ grants, publishes: true, threadId: opts.threadId ?? "t1" });
    if (opts.principal !== undefined) invocationState[PRINCIPAL_KEY] = opts.principal;
    const r = await agent.invoke("go", { invocationState });
    return { r, b, log };
  };

  test.each([
    ["once", "always", "interrupt"],
    ["once", "thread", "interrupt"],
    ["thread", "always", "interrupt"],
    ["thread", "thread", "endTurn"],
    ["always", "always", "endTurn"],
  ] as const)("a rule that now remembers %s: a %s grant → %s", async (remember, scope, stop) => {
    const g = grant(
      scope === "thread" ? { scope, threadId: "t1", subjectKey: "to:alice" } : { subjectKey: "to:alice" },
    );
    const { r, b } = await run([g], { remember });
    expect(r.stopReason).toBe(stop);
    expect(b.transfers).toHaveLength(stop === "endTurn" ? 1 : 0);
  });

  test.each([
    ["ann's grant in ann's run", "ann", "ann", "endTurn"],
    ["ann's grant in bob's run", "ann", "bob", "interrupt"],
    ["ann's grant in a run with no person", "ann", undefined, "interrupt"],
    ["a grant of no person in ann's run", undefined, "ann", "interrupt"],
  ] as const)("%s → %s", async (_, owner, principal, stop) => {
    const g = grant({ subjectKey: "to:alice", ...(owner ? { principal: owner } : {}) });
    const { r } = await run([g], principal ? { principal } : {});
    expect(r.stopReason).toBe(stop);
  });

  test("a grant for the same tool and subject runs without asking", async () => {
    const { r, b } = await run([grant({ subjectKey: "to:alice" })]);
    expect(r.stopReason).toBe("endTurn");
    expect(b.transfers).toHaveLength(1);
  });

  test.each([
    ["another subject", [{ subjectKey: "to:bob" }]],
    ["the whole tool, while the rule has a subject", [{}]],
    ["another tool", [{ tool: "balance", subjectKey: "to:alice" }]],
    ["another thread", [{ scope: "thread", threadId: "t2", subjectKey: "to:alice" }]],
    ["an expired grant", [{ subjectKey: "to:alice", expiresAt: 2 }]],
  ])("%s does not apply", async (_, grants) => {
    const { r, b } = await run(grants.map((g) => grant(g as Partial<Grant>)));
    expect(r.stopReason).toBe("interrupt");
    expect(b.transfers).toHaveLength(0);
  });

  test("a thread grant applies in its thread", async () => {
    const { r } = await run([grant({ scope: "thread", threadId: "t1", subjectKey: "to:alice" })]);
    expect(r.stopReason).toBe("endTurn");
  });

  test("malformed grants are ignored and reported; __proto__ and constructor are plain keys", async () => {
    const { r, log } = await run([{ tool: 5 }, "x", null, grant({ tool: "__proto__", subjectKey: "to:alice" })], {
      to: "constructor",
    });
    expect(r.stopReason).toBe("interrupt");
    // One line for the list, counting the three refused entries.
    const lines = log.lines.filter((l) => l.message.includes("malformed"));
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines[0])).toContain("3 grants refused");
  });

  test.each([
    ["no grants", undefined],
    ["a grant", [grant({ subjectKey: "to:alice" })]],
  ])("an empty secret is refused on the first gated call, with %s sent", async (_, grants) => {
    const b = bank();
    const hook = new InterruptHook([{ pattern: "transfer", subject: toRecipient, remember: "always" }], {
      logger: silentLogger(),
      secret: "",
    });
    const agent = newAgent(b, [hook], callsThenAnswers([{ name: "transfer", input: { to: "alice", amount: 1 } }]));
    const invocationState = hostState({ ...(grants ? { grants } : {}), publishes: true, threadId: "t1" });
    await expect(agent.invoke("go", { invocationState })).rejects.toThrow(/grant secret must not be empty/);
    expect(b.transfers).toHaveLength(0);
  });

  test("with a secret, only grants whose signature verifies count", async () => {
    const secret = "s3cret";
    const signed = await signGrant(grant({ subjectKey: "to:alice" }), secret);
    expect((await run([signed], { secret })).r.stopReason).toBe("endTurn");
    const forged = await signGrant(grant({ subjectKey: "to:alice" }), "other");
    const altered = { ...signed, subjectKey: "to:mallory" };
    for (const bad of [forged, grant({ subjectKey: "to:alice" }), altered]) {
      const { r, log } = await run([bad], { secret, to: bad === altered ? "mallory" : "alice" });
      expect(r.stopReason).toBe("interrupt");
      expect(log.lines.some((l) => l.message.includes("unverified"))).toBe(true);
    }
  });
});
