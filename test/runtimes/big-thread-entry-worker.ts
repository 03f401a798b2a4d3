// workerd entry for a thread record past SQLite's 2 MB value limit: POST /cas?thread=&expected= with a
// ThreadData body writes it through DurableObjectThreadStore (the Worker's client of the object);
// GET /load?thread= reads it back; POST /ledger?thread= claims, settles with the body as the result and
// claims again (answering `done` with it); POST /events?thread= logs the body as one event and reads it back.
import {
  DurableObjectThreadStore,
  KabooThread,
  type DurableObjectNamespaceLike,
} from "../../src/stores/durable-object.js";
import type { ThreadData } from "../../src/stores/thread-store.js";

export { KabooThread };

export default {
  async fetch(request: Request, env: { THREAD: DurableObjectNamespaceLike }): Promise<Response> {
    const url = new URL(request.url);
    const store = new DurableObjectThreadStore(env.THREAD);
    const thread = url.searchParams.get("thread") ?? "t";
    try {
      if (url.pathname === "/load") return Response.json(await store.load(thread));
      if (url.pathname === "/ledger") {
        const ledger = store.ledger(thread);
        const claim = await ledger.claim("k");
        if (claim.status !== "claimed") return Response.json({ error: claim.status });
        await ledger.settle("k", claim.token, {
          status: "success",
          content: [{ type: "text", text: await request.text() }],
        });
        return Response.json(await ledger.claim("k"));
      }
      if (url.pathname === "/events") {
        const text = await request.text();
        await store.appendEvents?.(thread, "r", 0, [{ type: "CUSTOM", value: text }, { type: "RUN_FINISHED" }], true);
        return Response.json(await store.readEvents?.(thread, "r", -1));
      }
      const data = (await request.json()) as ThreadData;
      return Response.json({ ok: await store.compareAndSet(thread, Number(url.searchParams.get("expected")), data) });
    } catch (error) {
      return Response.json({ error: String(error) });
    }
  },
};
