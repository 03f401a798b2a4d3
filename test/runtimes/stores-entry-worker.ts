// workerd entry for the Durable Object store tests: the KabooThread class bound as THREAD, the
// contract on GET /contract, and single store operations for races across requests.
import {
  DurableObjectThreadStore,
  KabooThread,
  type DurableObjectNamespaceLike,
} from "../../src/stores/durable-object.js";
import { runStoreContract } from "../stores/contract.js";
import { runHolderContract } from "../stores/holder-contract.js";

export { KabooThread };

interface Env {
  THREAD: DurableObjectNamespaceLike;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const store = new DurableObjectThreadStore(env.THREAD);
    const thread = url.searchParams.get("thread") ?? "t";
    switch (url.pathname) {
      case "/contract":
        return Response.json(await runStoreContract(store));
      case "/holder-contract":
        return Response.json(await runHolderContract(store));
      case "/load":
        return Response.json(await store.load(thread));
      case "/cas": {
        const expected = Number(url.searchParams.get("expected"));
        const marker = url.searchParams.get("marker") ?? "";
        const ok = await store.compareAndSet(thread, expected, {
          owner: null,
          session: { marker },
          messages: [],
          state: {},
          answered: {},
          lease: null,
          updatedAt: Date.now(),
        });
        return Response.json({ ok });
      }
      case "/raw": {
        // What the object answers to a body that is not one of the store's operations.
        const stub = env.THREAD.get(env.THREAD.idFromName(thread) as never);
        const res = await stub.fetch("https://kaboo-thread.internal/", { method: "POST", body: await request.text() });
        return Response.json({ status: res.status, body: await res.json() });
      }
      case "/claim":
        return Response.json(await store.ledger(thread).claim(url.searchParams.get("key") ?? "k"));
      default:
        return new Response("not found", { status: 404 });
    }
  },
};
