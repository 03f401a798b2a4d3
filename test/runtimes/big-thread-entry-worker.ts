// workerd entry for a thread record past SQLite's 2 MB value limit: POST /cas?thread=&expected= with a
// ThreadData body writes it through DurableObjectThreadStore (the Worker's client of the object);
// GET /load?thread= reads it back.
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
      const data = (await request.json()) as ThreadData;
      return Response.json({ ok: await store.compareAndSet(thread, Number(url.searchParams.get("expected")), data) });
    } catch (error) {
      return Response.json({ error: String(error) });
    }
  },
};
