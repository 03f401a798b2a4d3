/**
 * The handler's settings from its grouped options, derived in one place: every key checked, the
 * contradictory combinations refused, the run mode decided.
 *
 * @module
 */
import { UserError } from "../../errors.js";
import type { AguiHandlerOptions, HandlerSettings, RunMode } from "./options.js";

const GROUPS = {
  stores: ["thread", "grants", "ledger", "audit"],
  trust: ["secret", "principal", "acceptUnsignedGrants", "insecureDevelopmentMode"],
  limits: ["maxBodyBytes", "maxJsonDepth", "maxEntries", "maxJsonValues", "maxObjectKeys", "maxGrants"],
  timing: ["runLeaseMs", "eventLogRetentionMs", "heartbeatMs"],
} as const;
const TOP = new Set(["agent", "stores", "trust", "limits", "timing", "cors", "prepare", "logger"]);
/** Where each option of 0.1's flat bag went (for the error that names it). */
const MOVED: Record<string, string> = {
  store: "stores.thread",
  grantStore: "stores.grants",
  ledger: "stores.ledger",
  audit: "stores.audit",
  ...Object.fromEntries(
    (["trust", "limits", "timing"] as const).flatMap((g) => GROUPS[g].map((k) => [k, `${g}.${k}`])),
  ),
};

/**
 * The handler's settings from its options: checks every key (an unknown or moved one is named, with
 * where it went), refuses contradictory combinations, and derives the run mode.
 *
 * @param options - What `createAguiHandler` was given.
 * @returns The flat settings and the run mode.
 * @throws {UserError} For an unknown key, a contradictory combination, or neither a thread store nor a
 *   secret without `trust.insecureDevelopmentMode`.
 */
export function resolveHandlerOptions(options: AguiHandlerOptions): HandlerSettings & { mode: RunMode } {
  if (typeof options !== "object" || options === null)
    throw new UserError("createAguiHandler needs an options object.");
  for (const key of Object.keys(options)) {
    if (TOP.has(key)) continue;
    const moved = MOVED[key];
    throw new UserError(
      moved
        ? `createAguiHandler: \`${key}\` is now \`${moved}\` (options are grouped since 0.2; see the README's Upgrading).`
        : `createAguiHandler: unknown option \`${key}\`.`,
    );
  }
  for (const [group, keys] of Object.entries(GROUPS)) {
    const value = (options as unknown as Record<string, unknown>)[group];
    if (value === undefined) continue;
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new UserError(`createAguiHandler: \`${group}\` must be an object.`);
    for (const key of Object.keys(value))
      if (!(keys as readonly string[]).includes(key))
        throw new UserError(`createAguiHandler: unknown option \`${group}.${key}\` (it takes ${keys.join(", ")}).`);
  }
  const { stores = {}, trust = {}, limits = {}, timing = {} } = options;
  if (stores.thread && stores.ledger)
    throw new UserError(
      "createAguiHandler: `stores.ledger` is for a handler without a thread store; `stores.thread` brings its own ledger.",
    );
  if (trust.insecureDevelopmentMode === true && (stores.thread || trust.secret !== undefined))
    throw new UserError(
      "createAguiHandler: `trust.insecureDevelopmentMode` is only for a handler with neither `stores.thread` nor `trust.secret`.",
    );
  if (trust.acceptUnsignedGrants === true && (trust.secret !== undefined || stores.grants))
    throw new UserError(
      "createAguiHandler: `trust.acceptUnsignedGrants` counts only without `trust.secret` and `stores.grants` (with either, client grants must be signed or are replaced by the store's).",
    );
  const mode: RunMode = stores.thread
    ? "stored"
    : trust.secret !== undefined
      ? "sealed"
      : trust.insecureDevelopmentMode === true
        ? "insecure-development"
        : refuseUnsafe();
  return {
    agent: options.agent,
    store: stores.thread,
    grantStore: stores.grants,
    ledger: stores.ledger,
    audit: stores.audit,
    ...trust,
    ...limits,
    ...timing,
    cors: options.cors,
    prepare: options.prepare,
    logger: options.logger,
    mode,
  } as HandlerSettings & { mode: RunMode };
}

function refuseUnsafe(): never {
  throw new UserError(
    "createAguiHandler needs `stores.thread` (a thread store: exactly once, replays answered from the record) or " +
      "`trust.secret` (stateless: sessions are sealed so a client cannot forge what runs). For local development " +
      "only, set `trust: { insecureDevelopmentMode: true }`.",
  );
}
