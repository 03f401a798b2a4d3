/**
 * What loads with an agent's first run, in one chunk: the runner (reading the input, the loop, model
 * calls, tool batches, the ledger's steps, the queue of a streamed run) and the JSON Schema converter
 * for zod schemas that have none of their own. A page that builds its agent and tools at start-up
 * parses neither before someone asks something.
 *
 * @module
 */
export { runLoop } from "./loop.js";
export { runInput } from "./run-input.js";
export { EventQueue } from "./queue.js";
export { zodJsonSchema } from "./tools/zod-json-schema.js";
