/** Builds the invocationState a host (the AG-UI adapter) hands a run. */
export function hostState(o: { grants?: unknown[]; publishes?: boolean; threadId?: string } = {}): Record<string, unknown> {
  const state: Record<string, unknown> = { threadId: o.threadId ?? "t1", forwardedProps: o.grants ? { kaboo_grants: o.grants } : {} };
  if (o.publishes) state.sessionExchange = { publishesApprovals: true };
  return state;
}
