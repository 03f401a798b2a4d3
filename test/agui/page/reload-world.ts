/**
 * Pages that die at any step, over one IndexedDB (fake-indexeddb in Node, the real one in Chromium).
 *
 * A page "dies" at a numbered operation (a model chunk, a tool's effect, a ledger, store or grant
 * write): from then on everything of that page hangs (nothing it does lands any more) and its Web
 * Locks are let go, as when a browser drops a page. A new page (a new KabooAgent, a new ledger and
 * session store on the same databases) then opens the thread, as after a reload.
 */
import type { Interrupt as AguiInterrupt, Message as AguiMessage, ResumeEntry } from "@ag-ui/core";
import { KabooAgent } from "../../../src/agui/page/kaboo-agent.js";
import { IndexedDbSessionStore, type SessionStore, type ThreadSnapshot } from "../../../src/indexeddb/session-store.js";
import { IndexedDbExecutionLedger } from "../../../src/indexeddb/ledger.js";
import { MemoryGrantStore, type GrantStore } from "../../../src/grants/store.js";
import { InterruptHook } from "../../../src/hooks/interrupt-hook.js";
import { Agent, ScriptedModel, type AuditLog, type ExecutionLedger, type Model } from "../../../src/index.js";
import { newBank, transferTool } from "../../fixtures/bank.js";

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** An in-memory Web Locks manager (Node has none): exclusive locks, `ifAvailable`, `signal`, `query`. */
export class MemoryLocks {
  readonly #held = new Set<string>();
  readonly #waiting = new Map<string, (() => void)[]>();

  request(
    name: string,
    a: LockOptions | LockGrantedCallback<unknown>,
    b?: LockGrantedCallback<unknown>,
  ): Promise<unknown> {
    const [options, callback] =
      typeof a === "function" ? [{} as LockOptions, a] : [a, b as LockGrantedCallback<unknown>];
    if (this.#held.has(name)) {
      if (options.ifAvailable) return Promise.resolve().then(() => callback(null));
      return new Promise((resolve, reject) => {
        const queue = this.#waiting.get(name) ?? [];
        const grant = () => {
          options.signal?.removeEventListener("abort", onAbort);
          resolve(this.#run(name, callback));
        };
        const onAbort = () => {
          const at = queue.indexOf(grant);
          if (at >= 0) queue.splice(at, 1);
          reject(options.signal?.reason ?? new DOMException("aborted", "AbortError"));
        };
        if (options.signal?.aborted) return onAbort();
        options.signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(grant);
        this.#waiting.set(name, queue);
      });
    }
    return this.#run(name, callback);
  }

  async #run(name: string, callback: LockGrantedCallback<unknown>): Promise<unknown> {
    this.#held.add(name);
    try {
      return await callback({ name, mode: "exclusive" } as Lock);
    } finally {
      this.#held.delete(name);
      const next = this.#waiting.get(name)?.shift();
      if (next) next();
    }
  }

  async query(): Promise<LockManagerSnapshot> {
    return { held: [...this.#held].map((name) => ({ name, mode: "exclusive", clientId: "memory" })), pending: [] };
  }
}

/** One page of the world: its KabooAgent and whether it died. */
export interface Page {
  agent: KabooAgent;
  dead: boolean;
  /** Resolves when the page dies. */
  killed: Promise<void>;
  /** Kills the page now (a closed tab). */
  kill: () => void;
}

/** Runs one operation of a page, unless the page is dead (then it never settles). */
type Gate = <T>(label: string, op: () => Promise<T>) => Promise<T>;

/** Options of {@link ReloadWorld}. */
export interface ReloadWorldOptions {
  /** The page-wide lock manager: `navigator.locks` in Chromium, a {@link MemoryLocks} in Node. */
  locks: LockManager;
  /** Operation numbers (1-based, counted over the whole scenario) at which the page then open dies. */
  killAt?: readonly number[];
  /**
   * Says, before each operation, whether the page then open dies at it (with `killAt`). Operation
   * numbers are not a stable place in real Chromium (IndexedDB completions interleave with other
   * work); a label and its count are.
   */
  killWhen?: (op: number, label: string) => boolean;
  /** Awaited before each operation (to hold a run at a step), with its number and label. */
  onOp?: (op: number, label: string) => void | Promise<void>;
  /** The thread's audit trail, shared by every page; each append is an operation a page can die at. Default: none. */
  audit?: AuditLog;
}

/** A transfer that ran: the bank's own record (the truth a test compares against). */
export interface Transfer {
  to: string;
  amount: number;
  toolUseId: string;
}

/** The thread, the bank and the databases that outlive every page. */
export class ReloadWorld {
  readonly threadId = crypto.randomUUID();
  readonly bank: Transfer[] = [];
  readonly grants = new MemoryGrantStore();
  /** Interrupt ids whose answer was saved (a resume's first checkpoint landed). */
  readonly answered = new Set<string>();
  ops = 0;
  /** The label of each operation, by number − 1: where a scenario's steps fall. */
  readonly trace: string[] = [];
  /** Model streams each page started (a watching tab starts none). */
  readonly modelCalls = new Map<Page, number>();
  readonly #db = `reload-${crypto.randomUUID()}`;
  readonly #locks: LockManager;
  readonly #killAt: Set<number>;
  readonly #onOp: ReloadWorldOptions["onOp"];
  readonly #killWhen: ReloadWorldOptions["killWhen"];
  readonly #audit: AuditLog | undefined;

  constructor(o: ReloadWorldOptions) {
    this.#audit = o.audit;
    this.#locks = o.locks;
    this.#killAt = new Set(o.killAt ?? []);
    this.#onOp = o.onOp;
    this.#killWhen = o.killWhen;
  }

  /** Opens the thread in a new page (a reload, or a second tab). */
  openPage(): Page {
    let die = () => {};
    const killed = new Promise<void>((resolve) => {
      die = resolve;
    });
    const page = { dead: false, killed } as Page;
    const kill = () => {
      page.dead = true;
      die();
    };
    page.kill = kill;
    // Every operation of the page: counted, and the one it dies at (and all after) never lands.
    const gate: Gate = async (label, op) => {
      if (page.dead) return never();
      this.ops += 1;
      this.trace.push(label);
      await this.#onOp?.(this.ops, label);
      if (this.#killAt.has(this.ops) || this.#killWhen?.(this.ops, label) || page.dead) {
        kill();
        return never();
      }
      const value = await op();
      return page.dead ? never() : value;
    };
    const locks = pageLocks(this.#locks, page);
    page.agent = new KabooAgent({
      threadId: this.threadId,
      agent: () => bankRunner(this, gate, () => this.modelCalls.set(page, (this.modelCalls.get(page) ?? 0) + 1)),
      sessionStore: this.#store(gate),
      grantStore: gatedGrants(this.grants, gate),
      ledger: gatedLedger(new IndexedDbExecutionLedger({ dbName: `${this.#db}-ledger`, locks }), gate),
      locks,
      ...(this.#audit ? { audit: gatedAudit(this.#audit, gate) } : {}),
    });
    return page;
  }

  /** The session store's database (to read or tamper with it as another script would). */
  get sessionsDb(): string {
    return `${this.#db}-sessions`;
  }

  /** Reads the stored thread as a page would (never dies). */
  stored(): Promise<ThreadSnapshot | undefined> {
    return new IndexedDbSessionStore({ dbName: `${this.#db}-sessions` }).load(this.threadId);
  }

  #store(gate: Gate): SessionStore {
    const inner = new IndexedDbSessionStore({ dbName: `${this.#db}-sessions` });
    return {
      load: (threadId) => gate("store:load", () => inner.load(threadId)),
      save: (snapshot) =>
        gate(`store:save:${snapshot.run?.status ?? "-"}`, async () => {
          await inner.save(snapshot);
          for (const entry of snapshot.run?.resume ?? []) this.answered.add(entry.interruptId);
        }),
      remove: (threadId) => gate("store:remove", () => inner.remove(threadId)),
      threads: () => gate("store:threads", () => inner.threads()),
    };
  }
}

/**
 * The `nth` (1-based) operation whose label matches `pattern`, over the whole scenario.
 * @returns A test of each operation (for `killWhen`, or an `onOp` that holds one).
 */
export function nthOp(pattern: RegExp, nth: number): (op: number, label: string) => boolean {
  let seen = 0;
  return (_op, label) => pattern.test(label) && ++seen === nth;
}

/** How many operations of a scenario have a label matching `pattern`. */
export function countOps(world: ReloadWorld, pattern: RegExp): number {
  return world.trace.filter((label) => pattern.test(label)).length;
}

/** The page's locks: let go when it dies, and never granted to it afterwards. */
function pageLocks(base: LockManager, page: Page): LockManager {
  const request = (name: string, a: LockOptions | LockGrantedCallback<unknown>, b?: LockGrantedCallback<unknown>) => {
    const [options, callback] =
      typeof a === "function" ? [{} as LockOptions, a] : [a, b as LockGrantedCallback<unknown>];
    return base.request(name, options, (lock) => {
      if (page.dead) return undefined;
      return Promise.race([Promise.resolve().then(() => callback(lock)), page.killed.then(() => undefined)]);
    });
  };
  return { request, query: () => base.query() } as unknown as LockManager;
}

function gatedLedger(inner: ExecutionLedger, gate: Gate): ExecutionLedger {
  return {
    claim: (key, options) => gate("ledger:claim", () => inner.claim(key, options)),
    settle: (key, token, result) => gate("ledger:settle", () => inner.settle(key, token, result)),
    release: (key, token) => gate("ledger:release", () => inner.release(key, token)),
  };
}

function gatedAudit(inner: AuditLog, gate: Gate): AuditLog {
  return {
    append: (threadId, record) => gate(`audit:append:${record.kind}`, () => inner.append(threadId, record)),
    entries: (threadId) => gate("audit:entries", () => inner.entries(threadId)),
  };
}

function gatedGrants(inner: GrantStore, gate: Gate): GrantStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "subscribe") return value.bind(target);
      return (...args: unknown[]) =>
        gate(`grants:${String(prop)}`, () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
}

/**
 * The run shape: three model turns, two gated transfers to alice, one approval. Turn 1 asks for 5
 * (the person approves it for the thread), turn 2 for 3 (covered by that grant), turn 3 answers.
 */
function bankRunner(world: ReloadWorld, gate: Gate, onModelCall: () => void): Agent {
  const script = new ScriptedModel({
    chunkSize: 6,
    script: ({ messages }) => {
      const results = messages.flatMap((m) => m.content.filter((b) => b.type === "toolResult")).length;
      if (results === 0)
        return { reasoning: "A transfer.", toolCalls: [{ name: "transfer", input: { to: "alice", amount: 5 } }] };
      if (results === 1)
        return { text: "Now the second.", toolCalls: [{ name: "transfer", input: { to: "alice", amount: 3 } }] };
      return { text: "Sent 5 and then 3 to alice. Anything else?" };
    },
  });
  const model: Model = {
    modelId: script.modelId,
    async *stream(messages, options) {
      onModelCall();
      for await (const event of script.stream(messages, options)) {
        await gate(`model:${event.type}`, async () => undefined);
        yield event;
      }
    },
  };
  // The shared bank's transfer; the world's own record keeps each call's id. The effect and the answer
  // are one step: a page dies before the money moves (at the gate), or after.
  const transfer = transferTool(newBank(), {
    beforeMoving: (input) => gate(`tool:transfer:${input.amount}`, async () => undefined),
    onSent: ({ to, amount }, context) => void world.bank.push({ to, amount, toolUseId: context.toolUse.toolUseId }),
  });
  const approval = new InterruptHook(
    [
      {
        pattern: "transfer",
        remember: "always",
        subject: (_, i) => ({ key: `to:${(i as { to: string }).to}`, label: "alice" }),
      },
    ],
    { agentName: "bank" },
  );
  return new Agent({ name: "bank", model, tools: [transfer], hooks: [approval] });
}

/** What a scenario saw. */
export interface ScenarioLog {
  /** Approval questions shown after their answer was saved (must stay empty). */
  askedAgain: string[];
  approvals: number;
  outcomeQuestions: number;
  pages: number;
  messages: AguiMessage[];
}

/**
 * Plays the person: sends "pay alice", approves for the thread, answers an outcome question with
 * the truth (the bank's record), and after every death opens the thread again.
 */
export async function playScenario(world: ReloadWorld, o: PlayOptions = {}): Promise<ScenarioLog> {
  const log: ScenarioLog = { askedAgain: [], approvals: 0, outcomeQuestions: 0, pages: 0, messages: [] };
  let page = o.page ?? world.openPage();
  log.pages++;
  let connected = false;
  for (let step = 0; step < 40; step++) {
    const next = nextStep(world, page, connected, log, o.onInterrupt);
    const outcome = await Promise.race([next, page.killed.then(() => "killed" as const)]);
    if (outcome === "killed") {
      if (o.reopen === false) return log;
      page = world.openPage();
      log.pages++;
      connected = false;
      continue;
    }
    connected = true;
    if (outcome === "done") {
      log.messages = page.agent.messages;
      return log;
    }
  }
  throw new Error(
    `the scenario did not end: ${JSON.stringify({ failure: page.agent.runFailure, messages: page.agent.messages })}`,
  );
}

/** Options of {@link playScenario}. */
export interface PlayOptions {
  /** Sees each question the person is asked. */
  onInterrupt?: ((i: AguiInterrupt) => void) | undefined;
  /** The first page (default: a new one). */
  page?: Page;
  /** Whether a page that died is opened again (a reload). Default `true`; `false` ends the scenario (a closed tab). */
  reopen?: boolean;
}

async function nextStep(
  world: ReloadWorld,
  page: Page,
  connected: boolean,
  log: ScenarioLog,
  onInterrupt: ((i: AguiInterrupt) => void) | undefined,
): Promise<"done" | "more"> {
  const agent = page.agent;
  if (!connected) {
    await agent.connectAgent();
    return "more";
  }
  if (agent.runFailure) throw new Error(`the run failed: ${JSON.stringify(agent.runFailure)}`);
  const open = agent.pendingInterrupts;
  if (open.length) {
    for (const i of open) onInterrupt?.(i);
    await agent.runAgent({ resume: open.map((i) => answer(world, i, log)) });
    return "more";
  }
  if (!agent.messages.some((m) => m.role === "user")) {
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: "pay alice 5 now and 3 after" });
    await agent.runAgent();
    return "more";
  }
  const last = agent.messages.at(-1);
  if (last?.role === "assistant" && last.content && !last.toolCalls?.length) return "done";
  throw new Error(`stuck: ${JSON.stringify(agent.messages)}`);
}

function answer(world: ReloadWorld, i: AguiInterrupt, log: ScenarioLog): ResumeEntry {
  if (i.reason === "outcome_unknown") {
    log.outcomeQuestions++;
    const ran = world.bank.some((t) => t.toolUseId === i.toolCallId);
    return { interruptId: i.id, status: "resolved", payload: { action: ran ? "treat_as_done" : "run_again" } };
  }
  log.approvals++;
  if (world.answered.has(i.id)) log.askedAgain.push(i.id);
  return { interruptId: i.id, status: "resolved", payload: { approved: true, scope: "thread" } };
}

/** The transcript without ids: roles, text, calls (name + arguments) and results, in order. */
export function transcriptShape(messages: readonly AguiMessage[]): unknown[] {
  return messages.map((m) => {
    switch (m.role) {
      case "assistant":
        return {
          role: m.role,
          content: m.content ?? "",
          calls: (m.toolCalls ?? []).map((c) => [c.function.name, c.function.arguments]),
        };
      case "tool":
        return { role: m.role, content: m.content };
      default:
        return { role: m.role, content: "content" in m ? m.content : undefined };
    }
  });
}

/**
 * The run ended as the uninterrupted one did: the same transcript (ids aside; a result the person
 * confirmed after a reload reads as the confirmation), each transfer exactly once, no call that
 * ran reported as cancelled, no approval asked again once answered, at most one outcome question
 * per reload.
 */
export function expectSameRun(world: ReloadWorld, log: ScenarioLog, base: ScenarioLog, label: string): void {
  const fail = (what: string) => {
    throw new Error(`${label}: ${what}\n${JSON.stringify({ log, bank: world.bank }, null, 1)}`);
  };
  const sent = world.bank.map((t) => `${t.to}:${t.amount}`);
  if (JSON.stringify(sent) !== JSON.stringify(["alice:5", "alice:3"])) fail(`transfers ${JSON.stringify(sent)}`);
  if (log.askedAgain.length) fail(`approval asked again after its answer was saved: ${log.askedAgain.join(", ")}`);
  if (log.outcomeQuestions > log.pages - 1)
    fail(`${log.outcomeQuestions} outcome questions for ${log.pages - 1} reloads`);
  const ran = new Set(world.bank.map((t) => t.toolUseId));
  for (const m of log.messages) {
    if (m.role === "tool" && ran.has(m.toolCallId) && /cancel/i.test(String(m.content)))
      fail(`a call that ran reads "${m.content}"`);
  }
  const confirmed = /^The person confirmed that the call to "transfer" already ran/;
  const results = new Map(world.bank.map((t) => [t.toolUseId, `sent ${t.amount} to ${t.to}`]));
  const seen = log.messages.map((m) =>
    m.role === "tool" && confirmed.test(String(m.content)) ? { ...m, content: results.get(m.toolCallId) ?? "?" } : m,
  );
  const got = JSON.stringify(transcriptShape(seen));
  const want = JSON.stringify(transcriptShape(base.messages));
  if (got !== want) fail(`transcript differs:\n got ${got}\nwant ${want}`);
}

declare module "vitest" {
  export interface ProvidedContext {
    /** `KABOO_PROPERTY_RUNS`, or 0 for each property test's own default. */
    propertyRuns: number;
  }
}
