/**
 * Which audit trail a run records in ({@link runAudit}): the approval hooks write the gates' request,
 * decision and grant-use entries through it, the runner its execution entries (`audit-execution.ts`,
 * which loads with the first run).
 *
 * @module
 */
import type { Agent } from "../agent.js";
import type { AuditCallRecord, AuditEntry, AuditLog, AuditRecord, AuditTraceIds } from "./audit.js";
import { isAuditTraceIds } from "./trace-ids.js";
import type { InvocationState } from "../events.js";
import { privateRunKey, runContext } from "../run-context.js";

/** A run's audit trail, bound to its thread. */
export interface RunAudit {
  /** The log the records go to; `undefined` when only watchers read them. */
  log: AuditLog | undefined;
  threadId: string;
  /** Appends one entry; rejects when the log could not write it. */
  append(record: AuditRecord): Promise<void>;
  /**
   * Hands a record to the watchers alone, synchronously: for a run without a log, where nothing is stored or
   * awaited (the runner's settled calls). Nothing happens without watchers (or without the method: a trail
   * made elsewhere than {@link runAudit}).
   */
  tell?(record: AuditRecord): void;
}

/**
 * Reads a run's audit records as they are made (the tracing hook puts approvals and ledger answers on
 * its spans): the record, the entry as stored (`undefined` without a log), and the agent whose run made
 * it (child runs share the watchers of the state they were copied from). It must not throw; it cannot
 * change what is written. Without a log, the execution record of a call that ran comes with `idempotencyKey`
 * `""` and `resultDigest` `null`: nothing stores it, so nothing is hashed for it.
 */
export type AuditWatcher = (record: AuditRecord, entry: AuditEntry | undefined, agent: Agent) => void;

/**
 * Names where a call's entry sits in a trace, before the entry is written (the tracing hook answers with the
 * ids of the call's `execute_tool` span, which it starts if the call has none yet). `undefined` when it does
 * not trace `agent`'s run or the call. Ids that are not lowercase hex of the W3C lengths are not written (the
 * entry would not parse), nor is anything when it throws: tracing never fails the step that writes the entry.
 */
export type AuditTraceSource = (record: AuditCallRecord, agent: Agent) => AuditTraceIds | undefined;

const isSet = (v: unknown): v is Set<AuditWatcher> => v instanceof Set;
const watchersKey = privateRunKey("auditWatchers", isSet);
const isSources = (v: unknown): v is Set<AuditTraceSource> => v instanceof Set;
const sourcesKey = privateRunKey("auditTraceSources", isSources);

/**
 * Lets `source` name the trace ids this run's call entries carry (the first source that answers wins).
 * Only what a log stores carries them: a run without a log hands its records to the watchers unchanged.
 *
 * @param invocationState - The run's state.
 * @param source - Asked once per call record, just before it is appended.
 * @returns A function that stops it.
 */
export function traceRunAudit(invocationState: InvocationState, source: AuditTraceSource): () => void {
  let set = sourcesKey.find(invocationState);
  if (!set) {
    set = new Set();
    sourcesKey.set(invocationState, set);
  }
  set.add(source);
  const sources = set;
  return function untraceRunAudit() {
    sources.delete(source);
  };
}

/** `record` with the trace ids a source names, or as it is. */
function traced(record: AuditRecord, agent: Agent, sources: Set<AuditTraceSource> | undefined): AuditRecord {
  if (!sources?.size || record.kind === "revocation") return record;
  for (const source of sources) {
    let ids: AuditTraceIds | undefined;
    try {
      ids = source(record, agent);
    } catch {
      // Tracing only annotates: its failure must not fail the step whose record is written.
    }
    if (ids && isAuditTraceIds(ids)) return { ...record, traceId: ids.traceId, spanId: ids.spanId };
  }
  return record;
}

/**
 * Lets `watcher` read the records this run's gates and ledger make, with or without an audit log:
 * without one, {@link runAudit} hands them to the watchers only.
 *
 * @param invocationState - The run's state.
 * @param watcher - Called once per record, after the log stored it.
 * @returns A function that stops watching.
 */
export function watchRunAudit(invocationState: InvocationState, watcher: AuditWatcher): () => void {
  let set = watchersKey.find(invocationState);
  if (!set) {
    set = new Set();
    watchersKey.set(invocationState, set);
  }
  set.add(watcher);
  const watching = set;
  return function unwatchRunAudit() {
    watching.delete(watcher);
  };
}

/**
 * The audit trail a run records in: the one in its `invocationState` (the host's), else the agent's.
 *
 * @param agent - The running agent.
 * @param invocationState - The run's state.
 * @returns The trail bound to the run's thread (`""` for an agent without one), or `undefined` when the run
 *   has neither a log nor a watcher ({@link watchRunAudit}).
 */
export function runAudit(agent: Agent, invocationState: InvocationState): RunAudit | undefined {
  const log = runContext.auditLog.get(invocationState) ?? agent.audit;
  const watchers = watchersKey.find(invocationState);
  if (!log && !watchers?.size) return undefined;
  const threadId = runContext.threadId.find(invocationState) ?? "";
  const sources = log ? sourcesKey.find(invocationState) : undefined;
  if (!watchers?.size)
    return {
      log,
      threadId,
      append: async (record) => void (await log?.append(threadId, traced(record, agent, sources))),
      tell: ignore,
    };
  const tell = (record: AuditRecord, entry?: AuditEntry) => {
    for (const watch of watchers) {
      try {
        watch(record, entry, agent);
      } catch {
        // A watcher only reads: its failure must not fail the step whose record was written.
      }
    }
  };
  return {
    log,
    threadId,
    append: async (record) => {
      if (!log) return tell(record);
      const stamped = traced(record, agent, sources);
      tell(stamped, await log.append(threadId, stamped));
    },
    tell,
  };
}

const ignore = () => undefined;
