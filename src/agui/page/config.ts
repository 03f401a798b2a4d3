/**
 * What a {@link KabooAgent} is configured with, and the parameters of its runs.
 *
 * @module
 */
import type { AbstractAgent, AgentConfig as AguiAgentConfig } from "@ag-ui/client";
import type { Agent } from "../../agent/agent.js";
import type { AuditLog } from "../../agent/audit/audit.js";
import type { InvocationState } from "../../agent/events.js";
import type { ExecutionLedger } from "../../agent/ledger/ledger.js";
import type { GrantStore } from "../../grants/store.js";
import type { SessionStore } from "../../indexeddb/session-store.js";
import type { ClientToolHandler } from "../client-tools.js";
import type { IndexedDbExecutionLedger } from "../../indexeddb/ledger.js";
import type { KabooAgent } from "./kaboo-agent.js";

/** Options of {@link KabooAgent}. */
export interface KabooAgentConfig extends AguiAgentConfig {
  /** The runner agent, or a factory giving each thread its own (recommended: threads never share a transcript). */
  agent: Agent | ((threadId: string) => Agent);
  /** Remembered approvals: sent with every run, and `thread`/`always` answers are recorded. */
  grantStore?: GrantStore;
  /**
   * Keeps each thread's last snapshot, and a checkpoint of a run after each step, so that
   * `connectAgent()` can restore the thread, or continue its run, after a reload.
   */
  sessionStore?: SessionStore;
  /**
   * The Web Locks manager that lets one tab drive a thread's run (the others watch it). Default
   * `navigator.locks` where it exists; `null` for none (then nothing stops two tabs from driving).
   * The default ledger uses the same manager.
   */
  locks?: LockManager | null;
  /**
   * The record of which calls ran, claimed before each call: the same call approved in two tabs, or
   * resumed again after a reload, runs once. Default: an {@link IndexedDbExecutionLedger} (Web Locks
   * across tabs) where IndexedDB exists; `null` leaves each runner agent its own memory ledger.
   */
  ledger?: ExecutionLedger | null;
  /**
   * The audit trail (e.g. `IndexedDbAuditLog`): questions, answers, grant uses and calls of every
   * thread, hash-chained per thread; each new entry is also sent as a CUSTOM `kaboo_audit` event.
   * Default: none.
   */
  audit?: AuditLog;
  /**
   * The person using this page, read at the start of each run (a function when it can change, e.g.
   * a persona switch): the gates see it (four-eyes approvals: who asked, who approved), and the
   * grants of `grantStore` are read and recorded for that person only. Default: none.
   */
  principal?: string | (() => string | undefined);
  /** Browser tools the page runs itself, by name. */
  clientToolHandlers?: Record<string, ClientToolHandler>;
  /** Extra per-run setup of `invocationState`. */
  prepare?: (invocationState: InvocationState) => void | Promise<void>;
}

/** `runAgent()`/`connectAgent()` parameters: AG-UI's, plus the controller that stops the run. */
export type KabooRunParameters = Parameters<AbstractAgent["runAgent"]>[0] & { abortController?: AbortController };
