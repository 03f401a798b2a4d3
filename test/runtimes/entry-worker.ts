// workerd entry: a module worker that runs the scenario per request and answers with JSON.
import { runScenario } from "./scenario.js";

export default {
  async fetch(): Promise<Response> {
    try {
      return Response.json(await runScenario());
    } catch (error) {
      const text = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
      return new Response(text, { status: 500 });
    }
  },
};
