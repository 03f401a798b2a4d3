/**
 * The OTLP end-to-end test's parts: a loopback OTLP/HTTP receiver, the paused-then-approved edge thread run in
 * workerd against it, and the checks on the payload it received (used with the test's exporter, and with
 * `@opentelemetry/exporter-trace-otlp-http` where that is installed).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Miniflare } from "miniflare";
import { expect } from "vitest";
import { pause, resumeBody, send } from "../agui/edge/fixtures.js";
import { bundleEntry, ensureDist } from "./bundle.js";

const ASKING = "0af7651916cd43dd8448eb211c80319c";
const ANSWERING = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const header = (traceId: string) => ({ traceparent: `00-${traceId}-${CALLER_SPAN}-01` });

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: OtlpValue }[];
  events?: { name: string }[];
  links?: { traceId: string; spanId: string }[];
}
interface Received {
  path: string;
  contentType: string | undefined;
  body: { resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[] };
}

/** A loopback OTLP/HTTP receiver: keeps every JSON request to /v1/traces. */
function receiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => {
      received.push({ path: req.url ?? "", contentType: req.headers["content-type"], body: JSON.parse(text) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, received }),
    ),
  );
}

const attr = (s: OtlpSpan | undefined, key: string) => {
  const v = s?.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.boolValue ?? (v?.intValue === undefined ? v?.doubleValue : Number(v.intValue));
};

/** Runs the paused-then-approved edge thread in workerd against a receiver; returns what it received. */
export async function edgeRunExported(entry: string) {
  ensureDist();
  const otlp = await receiver();
  const mf = new Miniflare({
    modules: true,
    script: await bundleEntry(entry, { browser: true }),
    compatibilityDate: "2025-04-01",
    bindings: { OTLP_URL: otlp.url },
  });
  try {
    const handle = async (r: Request) =>
      (await mf.dispatchFetch(r.url, {
        method: r.method,
        headers: Object.fromEntries(r.headers),
        body: await r.text(),
      })) as unknown as Response;
    const { turn } = await pause(handle, "th", "pay ann 5", header(ASKING));
    const done = await send(handle, resumeBody("th", turn, { approved: true }), header(ANSWERING));
    const kept = (await (await mf.dispatchFetch("http://edge.test/audit")).json()) as {
      entries: { kind: string; traceId?: string; spanId?: string }[];
      sent: unknown[];
    };
    return { ...otlp, done, kept };
  } finally {
    await mf.dispose();
    otlp.server.close();
  }
}

/** The checks on the payload the receiver got. */
export function checkPayload(run: Awaited<ReturnType<typeof edgeRunExported>>) {
  const { received, done, kept } = run;
  expect(done.error).toBeUndefined();
  expect(kept.sent).toEqual([{ to: "ann", amount: 5 }]);
  expect(received.length).toBeGreaterThanOrEqual(2);
  for (const r of received) {
    expect(r.path).toBe("/v1/traces");
    expect(r.contentType).toMatch(/^application\/json/);
  }
  const spans = received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
  const scopes = received.flatMap((r) =>
    r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.map((ss) => ss.scope.name)),
  );
  expect(new Set(scopes)).toEqual(new Set(["kaboo-otlp-e2e"]));
  const named = (name: string) => spans.filter((s) => s.name === name);
  const [askRun, answerRun] = named("invoke_agent bank");
  const [asked, ran] = named("execute_tool transfer");
  expect(named("invoke_agent bank")).toHaveLength(2);
  expect(named("execute_tool transfer")).toHaveLength(2);
  // Each request's spans are in its caller's trace, the run under the caller's span, the calls under the run.
  expect([askRun?.traceId, askRun?.parentSpanId]).toEqual([ASKING, CALLER_SPAN]);
  expect([answerRun?.traceId, answerRun?.parentSpanId]).toEqual([ANSWERING, CALLER_SPAN]);
  expect([asked?.traceId, asked?.parentSpanId]).toEqual([ASKING, askRun?.spanId]);
  expect([ran?.traceId, ran?.parentSpanId]).toEqual([ANSWERING, answerRun?.spanId]);
  for (const chat of spans.filter((s) => s.name.startsWith("chat")))
    expect([askRun?.spanId, answerRun?.spanId]).toContain(chat.parentSpanId);
  expect(attr(askRun, "gen_ai.conversation.id")).toBe("th");
  expect(attr(answerRun, "kaboo.run.resuming")).toBe(true);
  expect(attr(asked, "gen_ai.operation.name")).toBe("execute_tool");
  expect(attr(asked, "kaboo.approval.decision")).toBe("asked");
  expect(attr(ran, "kaboo.approval.decision")).toBe("approved");
  expect(attr(ran, "kaboo.approval.principal")).toBe("bob");
  expect(attr(ran, "kaboo.ledger.answer")).toBe("ran");
  expect(ran?.events?.map((e) => e.name)).toEqual(["kaboo.approval.decided", "kaboo.ledger.answered"]);
  // One trace view from asked to ran: the resumed call links to the span that asked, in the other trace.
  expect(ran?.links?.map((l) => [l.traceId, l.spanId])).toEqual([[ASKING, asked?.spanId]]);
  // The audit entries name the exported spans.
  expect(kept.entries.map((e) => [e.kind, e.traceId, e.spanId])).toEqual([
    ["request", ASKING, asked?.spanId],
    ["decision", ANSWERING, ran?.spanId],
    ["execution", ANSWERING, ran?.spanId],
  ]);
}
