/**
 * The guides' "Try it" programs run as printed (docs:check only type-checks them): the Node + PostgreSQL
 * guide's server on PGlite, answered with the guide's own curl requests and its HttpAgent client, the AI
 * SDK guide's one file on the AI SDK's mock model, and the page guide's whole loop (in Node, on
 * fake-indexeddb). Only their `kaboo-workflows` imports are pointed at src/ (and PGlite kept in memory, the
 * server on a free port); a slip a newcomer would hit (a wrong option, a missing import, a request body
 * the handler refuses, an output the page promises and the program does not print) fails here.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterEach, expect, test, vi } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The fenced blocks of `lang` in the page's section that starts with `heading` (up to the next `## `). */
function blocks(page: string, heading: string, lang: string): string[] {
  const text = readFileSync(join(root, "docs/guide", page), "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${page} has no section ${heading}`);
  const next = text.indexOf("\n## ", start + heading.length + 2);
  const section = text.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]!);
}

/** `text` with `from` replaced by `to`; fails when `from` is not there (the page changed under the test). */
function swap(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the guide's code no longer holds ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

/** Writes the program with its `kaboo-workflows` imports pointed at src/ and imports it. */
async function runProgram(name: string, code: string): Promise<Record<string, unknown>> {
  const runnable = code.replace(/from "kaboo-workflows(\/[\w/-]+)?"/g, (_, sub: string | undefined) => {
    const base = join(root, "src", sub ?? "");
    const file = [join(base, "index.ts"), `${base}.ts`].find(existsSync);
    if (!file) throw new Error(`no source for kaboo-workflows${sub ?? ""}`);
    return `from "${pathToFileURL(file).href}"`;
  });
  const dir = join(root, ".tmp");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `docs-guide-${name}-${process.pid}.mjs`);
  writeFileSync(file, runnable);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } finally {
    rmSync(file, { force: true });
  }
}

/** A `curl -N localhost:8787 -H '…' -d '…'` command of the guide as a Request. */
function curlRequest(command: string): Request {
  const headers = new Headers();
  for (const m of command.matchAll(/-H '([^:']+):\s*([^']*)'/g)) headers.set(m[1]!, m[2]!);
  const body = /-d '([^']*)'/.exec(command)?.[1];
  if (!body) throw new Error(`no -d body in ${command}`);
  return new Request("http://localhost:8787/", { method: "POST", headers, body });
}

/** The AG-UI events of an SSE response. */
async function events(response: Response): Promise<{ type: string; [key: string]: unknown }[]> {
  const text = await response.text();
  return [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
}

afterEach(() => {
  vi.restoreAllMocks();
});

test("Node with PostgreSQL: the PGlite server pauses, is answered by the guide's curl requests, runs the transfer once", async () => {
  const logs: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args.join(" ")));
  const [server] = blocks("node-postgres.md", "## Try it: a whole server on PGlite", "js");
  const [, ask, answer] = blocks("node-postgres.md", "## Try it: a whole server on PGlite", "sh");
  expect(server && ask && answer).toBeTruthy();
  let code = swap(server!, 'PGlite.create("./pgdata")', "PGlite.create()");
  code = swap(code, "serve({ fetch: (request) => handler(request), port: 8787 });", "export { handler };");
  const { handler } = (await runProgram("node-postgres", code)) as { handler: (r: Request) => Promise<Response> };
  const transfers = () => logs.filter((l) => l === "transfer ran: 5 to alice").length;

  const asked = await events(await handler(curlRequest(ask!)));
  const finished = asked.at(-1) as { type: string; outcome?: { type: string; interrupts: { id: string }[] } };
  expect(finished.type).toBe("RUN_FINISHED");
  expect(finished.outcome?.type).toBe("interrupt");
  const id = finished.outcome!.interrupts[0]!.id;
  expect(id).toMatch(/^hook:beforeToolCall:call_.*:kaboo_approval$/); // the shape the page shows
  expect(transfers()).toBe(0);

  const answered = await events(await handler(curlRequest(swap(answer!, "INTERRUPT_ID", id))));
  const said = answered.flatMap((e) => (e.type === "TEXT_MESSAGE_CONTENT" ? [e.delta] : [])).join("");
  expect(said).toBe("Done: sent 5 to alice.");
  expect(transfers()).toBe(1);

  // The same answer again: the transfer does not run again.
  await events(await handler(curlRequest(swap(answer!, "INTERRUPT_ID", id))));
  expect(transfers()).toBe(1);
  // From bob: THREAD_FORBIDDEN; with no x-user: 401.
  const bob = await events(
    await handler(curlRequest(swap(answer!, "INTERRUPT_ID", id).replace("x-user: ann", "x-user: bob"))),
  );
  expect(bob.find((e) => e.type === "RUN_ERROR")?.code).toBe("THREAD_FORBIDDEN");
  const anonymous = await handler(curlRequest(ask!.replace(/-H 'x-user: ann' ?/, "")));
  expect(anonymous.status).toBe(401);
  expect(transfers()).toBe(1);

  // The page's HttpAgent client, against the server listening as the guide has it (on a free port here).
  const [, client] = blocks("node-postgres.md", "## Try it: a whole server on PGlite", "js");
  const listening = serve({ fetch: (request) => handler(request), port: 0 });
  try {
    await new Promise<void>((done) => (listening.listening ? done() : listening.once("listening", done)));
    const { port } = listening.address() as AddressInfo;
    logs.length = 0;
    await runProgram("node-postgres-client", swap(client!, "http://localhost:8787", `http://127.0.0.1:${port}`));
    expect(logs.filter((l) => !l.startsWith("transfer ran"))).toEqual([
      'Allow a call to "transfer"?',
      "Done: sent 5 to alice.",
    ]);
    expect(transfers()).toBe(1); // this client's thread's transfer (logs was emptied before it)
  } finally {
    listening.close();
  }
}, 120_000);

test("With the AI SDK: the one-file try-out asks, runs the approved transfer once, and prints what the page says", async () => {
  const logs: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args.join(" ")));
  const [program] = blocks("ai-sdk.md", "## Try it in one file", "js");
  expect(program).toBeTruthy();
  await runProgram("ai-sdk", program!);
  expect(logs).toEqual(["Allow transfers to bob?", "Done. Transfers: 1", "Transfers: 1"]);
  const page = readFileSync(join(root, "docs/guide/ai-sdk.md"), "utf8");
  expect(page).toContain("It prints `Allow transfers to bob?`, `Done. Transfers: 1`, `Transfers: 1`.");
  // Each console.log line's comment says what it prints.
  for (const said of logs) expect(program).toContain(`// "${said}"`);
}, 60_000);

test("Approvals in the page: the whole loop asks, is answered through runAgent({ resume }), and runs the transfer", async () => {
  const logs: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logs.push(args.join(" ")));
  const [program] = blocks("approvals-in-the-page.md", "## The whole loop", "js");
  expect(program).toBeTruthy();
  // In Node, IndexedDB comes from fake-indexeddb; a page has its own.
  await runProgram("page", `import "fake-indexeddb/auto";\n${program!}`);
  expect(logs).toEqual(['Allow a call to "transfer"?', "Done: sent 5 to alice."]);
  expect(program).toContain(`// 'Allow a call to "transfer"?'`);
  expect(program).toContain(`// "Done: sent 5 to alice."`);
}, 60_000);
