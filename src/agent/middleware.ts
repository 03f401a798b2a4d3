/**
 * Model-input middleware: an ordered chain that rewrites the copy of the
 * conversation sent to the model. The agent's own transcript is never touched.
 *
 * @module
 */
import type { ToolSpec } from "./model.js";
import type { Agent } from "./agent.js";
import type { InvocationState } from "./events.js";
import type { Message } from "./messages/messages.js";

/** What the model will be sent. */
export interface ModelInput {
  messages: Message[];
  systemPrompt: string | undefined;
  toolSpecs: ToolSpec[];
}

/** What a middleware knows about the call. */
export interface ModelInputContext {
  readonly agent: Agent;
  readonly invocationState: InvocationState;
  /** 0 for the invocation's first model call. */
  readonly callIndex: number;
}

/**
 * Rewrites the model's input. Receives the previous middleware's output and
 * returns a new one; it must not mutate the messages it was given (they may be
 * the agent's own), so copy what you change.
 */
export type ModelInputMiddleware = (input: ModelInput, context: ModelInputContext) => ModelInput | Promise<ModelInput>;

/** The agent's middleware chain. */
export class ModelInputChain {
  #list: ModelInputMiddleware[] = [];

  /**
   * Appends a middleware (it runs after those already added).
   * @returns A function that removes it.
   */
  use(middleware: ModelInputMiddleware): () => void {
    this.#list.push(middleware);
    const list = this.#list;
    return function removeMiddleware() {
      const i = list.indexOf(middleware);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** How many middlewares are installed. */
  get size(): number {
    return this.#list.length;
  }

  /** Runs the chain. */
  async apply(input: ModelInput, context: ModelInputContext): Promise<ModelInput> {
    let current = input;
    for (const m of this.#list) {
      // Awaited only when the middleware answers with a promise (a microtask hop per model call less).
      const out = m(current, context);
      current = typeof (out as PromiseLike<ModelInput>).then === "function" ? await out : (out as ModelInput);
    }
    return current;
  }
}
