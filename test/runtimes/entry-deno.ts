// Deno entry: prints the outcome as one JSON line on stdout.
import { runScenario } from "./scenario.js";

console.log(JSON.stringify(await runScenario()));
