// workerd entry for the disconnect property: the scenario's runs hosted in each thread's Durable
// Object; transfers recorded per thread in a BANK object (they must survive nothing but be counted
// across requests); GET /load?thread= and /sent?thread= read back the record and the transfers.
import { createAguiHandler, forwardToThread } from "../../src/agui/index.js";
import {
  DurableObjectThreadStore,
  KabooThread as KabooThreadBase,
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
} from "../../src/stores/durable-object.js";
import { scenarioAgent } from "../agui/edge/disconnect-scenario.js";
import { capturingLogger } from "../fixtures/logger.js";

interface Env {
  THREAD: DurableObjectNamespaceLike;
  BANK: DurableObjectNamespaceLike;
}

const quiet = capturingLogger(true);

export class KabooThread extends KabooThreadBase {
  constructor(ctx: DurableObjectStateLike, env: Env) {
    super(ctx, env, {
      handler: (store) =>
        createAguiHandler({
          stores: { thread: store },
          logger: quiet,
          agent: (threadId) =>
            scenarioAgent(async (to) => {
              const bank = env.BANK.get(env.BANK.idFromName(threadId) as never);
              await bank.fetch("https://bank/", { method: "POST", body: to });
            }),
        }),
    });
  }
}

export class Bank {
  readonly #sql: DurableObjectStateLike["storage"]["sql"];
  constructor(ctx: DurableObjectStateLike) {
    this.#sql = ctx.storage.sql;
    this.#sql.exec("CREATE TABLE IF NOT EXISTS sent (n INTEGER PRIMARY KEY AUTOINCREMENT, who TEXT)");
  }
  async fetch(request: Request): Promise<Response> {
    if (request.method === "POST") this.#sql.exec("INSERT INTO sent (who) VALUES (?)", await request.text());
    return Response.json(
      this.#sql
        .exec("SELECT who FROM sent ORDER BY n")
        .toArray()
        .map((r) => r.who),
    );
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const thread = url.searchParams.get("thread") ?? "";
    if (url.pathname === "/load") return Response.json(await new DurableObjectThreadStore(env.THREAD).load(thread));
    if (url.pathname === "/sent") return env.BANK.get(env.BANK.idFromName(thread) as never).fetch("https://bank/");
    return forwardToThread(request, env.THREAD);
  },
};
