/** Builds the invocationState a host (the AG-UI adapter) hands a run. */
import { createSessionExchange } from "../../src/agent/interrupts/session-exchange.js";

export function hostState(
  o: { grants?: unknown[]; publishes?: boolean; threadId?: string } = {},
): Record<string, unknown> {
  const state: Record<string, unknown> = {
    threadId: o.threadId ?? "t1",
    forwardedProps: o.grants ? { kaboo_grants: o.grants } : {},
  };
  // A run publishes its open requests once SessionStateHook records its agent on the exchange.
  if (o.publishes) createSessionExchange(state).publishesApprovals = true;
  return state;
}
