// workerd entry for the governance tests: KabooThread and KabooGrants bound as THREAD and GRANTS.
// Each request builds its own handler and stores, so nothing but the Durable Objects is shared.
import {
  DurableObjectAuditLog,
  DurableObjectGrantStore,
  DurableObjectThreadStore,
  KabooGrants,
  KabooThread,
  type DurableObjectNamespaceLike,
  type GrantsNamespaceLike,
} from "../../src/stores/durable-object.js";
import { governanceApp } from "./governance-app.js";

export { KabooGrants, KabooThread };

interface Env {
  THREAD: DurableObjectNamespaceLike;
  GRANTS: GrantsNamespaceLike;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const app = governanceApp({
      store: new DurableObjectThreadStore(env.THREAD),
      grantStore: new DurableObjectGrantStore(env.GRANTS),
      newGrantStore: () => new DurableObjectGrantStore(env.GRANTS),
      newAudit: () => new DurableObjectAuditLog(env.THREAD),
    });
    return app(request);
  },
};
