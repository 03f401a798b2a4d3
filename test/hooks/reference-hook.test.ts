import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { Agent, ScriptedModel, type Message, type ScriptedRequest } from "../../src/index.js";
import { capturingLogger } from "../fixtures/logger.js";
import {
  MANIFEST_HEADER,
  REFERENCES_KEY,
  ReferenceHook,
  ReferenceRegistry,
  createReferenceRegistry,
  referenceTools,
} from "../../src/hooks/reference-hook.js";

const png = { id: "ref_1", name: "photo.png", mimeType: "image/png", size: 2048, data: "iVBORw0KGgo=" };
const pdf = {
  id: "ref_2",
  name: "plan.pdf",
  mimeType: "application/pdf",
  size: 48213,
  url: "https://files.example/plan.pdf",
};

function texts(m: Message): string[] {
  return m.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
}

function setup(
  options: { enabled?: boolean; inline?: boolean; toolEnabled?: boolean },
  script: ConstructorParameters<typeof ScriptedModel>[0]["script"],
) {
  const requests: ScriptedRequest[] = [];
  const wrap = (s: typeof script) =>
    typeof s === "function"
      ? (r: ScriptedRequest) => (requests.push(structuredClone(r)), s(r))
      : s.map((t) => (r: ScriptedRequest) => (requests.push(structuredClone(r)), typeof t === "function" ? t(r) : t));
  const agent = new Agent({
    model: new ScriptedModel({ script: wrap(script), ids: "sequential" }),
    tools: referenceTools(),
    hooks: [
      new ReferenceHook({
        enabled: options.enabled ?? true,
        inline: options.inline ?? false,
        toolEnabled: options.toolEnabled ?? true,
      }),
    ],
  });
  return { agent, requests };
}

describe("ReferenceHook: manifest", () => {
  test("appends the manifest to the invocation's prompt (a copy), once per run and per unchanged attachment set", async () => {
    const { agent, requests } = setup({}, () => ({ text: "ok" }));
    const state: Record<string, unknown> = {};
    createReferenceRegistry(state, [png, pdf]);
    await agent.invoke("look at these", { invocationState: state });
    const manifest = texts(agent.messages[0]!)[1]!;
    expect(manifest).toBe(
      [
        MANIFEST_HEADER,
        "The person attached these files in this conversation:",
        "- photo.png (image/png, 2.0 KB) id: ref_1",
        "- plan.pdf (application/pdf, 47.1 KB) id: ref_2",
        "Call list_attachments to list them and fetch_attachment with an id to read one.",
        "</attachments>",
      ].join("\n"),
    );
    expect(texts(requests[0]!.messages[0]!)).toEqual(["look at these", manifest]);
    await agent.invoke("and again", { invocationState: state });
    expect(agent.messages.flatMap(texts).filter((t) => t.startsWith(MANIFEST_HEADER))).toHaveLength(1);
    createReferenceRegistry(state, [png, pdf, { ...png, id: "ref_3", name: "second.png" }]);
    await agent.invoke("one more file", { invocationState: state });
    expect(texts(agent.messages[4]!)[1]).toContain("second.png");
  });

  test.each([
    [false, false, /ask the person to paste/],
    [false, true, /included with the person's latest message/],
    [true, true, /Call list_attachments/],
  ])("toolEnabled %s, inline %s: the wording says how to read them", async (toolEnabled, inline, wording) => {
    const { agent } = setup({ toolEnabled, inline }, [{ text: "ok" }]);
    const state: Record<string, unknown> = {};
    createReferenceRegistry(state, [png]);
    await agent.invoke("hi", { invocationState: state });
    expect(texts(agent.messages[0]!)[1]).toMatch(wording);
  });

  test("enabled: false is a no-op (no manifest, no media)", async () => {
    const { agent, requests } = setup({ enabled: false, inline: true }, [{ text: "ok" }]);
    const state: Record<string, unknown> = {};
    createReferenceRegistry(state, [png]);
    await agent.invoke("hi", { invocationState: state });
    expect(requests[0]!.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect(agent.modelInput.size).toBe(0);
  });

  test("no registry or an empty one: nothing is injected", async () => {
    const { agent, requests } = setup({ inline: true }, () => ({ text: "ok" }));
    await agent.invoke("hi");
    await agent.invoke("hi", { invocationState: { [REFERENCES_KEY]: [png] } });
    expect(requests.map((r) => r.messages.at(-1)!.content.length)).toEqual([1, 1]);
  });

  test("malformed reference entries are skipped and logged", () => {
    const logger = capturingLogger();
    const registry = new ReferenceRegistry(
      [
        png,
        { ...pdf, id: "x", url: "javascript:alert(1)" },
        { ...png, id: "dup", data: "not base64!" },
        { ...png, id: "both", url: "https://a.example" },
        { ...png, id: "neither", data: undefined },
        { ...png, id: "bad id\nwith newline" },
        { ...png, id: "neg", size: -1 },
        { ...png, id: "mime", mimeType: "png" },
        null,
        "ref",
        png,
      ],
      logger,
    );
    expect(registry.list().map((r) => r.id)).toEqual(["ref_1"]);
    expect(logger.warns.join()).toMatch(/skipped 10/);
  });

  test("property: a name cannot forge manifest lines or close the block", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (name) => {
        const { agent } = setup({}, [{ text: "ok" }]);
        const state: Record<string, unknown> = {};
        createReferenceRegistry(state, [{ ...png, name }]);
        await agent.invoke("hi", { invocationState: state });
        const lines = texts(agent.messages[0]!)[1]!.split("\n");
        expect(lines).toHaveLength(5);
        expect(lines.filter((l) => l.includes("</attachments>"))).toEqual(["</attachments>"]);
      }),
      { numRuns: 50 },
    );
  });
});

describe("ReferenceHook: inline media and tools", () => {
  test("inline prepends the media to the latest prompt of the model's copy only, before every call", async () => {
    const { agent, requests } = setup({ inline: true }, [
      { toolCalls: [{ name: "list_attachments" }] },
      { text: "done" },
      { text: "again" },
    ]);
    const state: Record<string, unknown> = {};
    createReferenceRegistry(state, [png, pdf]);
    await agent.invoke("describe", { invocationState: state });
    for (const r of requests) {
      expect(r.messages[0]!.content.slice(0, 2)).toEqual([
        { type: "image", mimeType: "image/png", name: "photo.png", data: png.data },
        { type: "document", mimeType: "application/pdf", name: "plan.pdf", url: pdf.url },
      ]);
    }
    expect(agent.messages[0]!.content.map((b) => b.type)).toEqual(["text", "text"]);
    await agent.invoke("again", { invocationState: state });
    expect(agent.modelInput.size).toBe(1);
    const last = requests.at(-1)!.messages;
    expect(last[0]!.content.map((b) => b.type)).toEqual(["text", "text"]);
    expect(last.at(-1)!.content.map((b) => b.type)).toEqual(["image", "document", "text"]);
  });

  test("list_attachments and fetch_attachment; an unknown id is an error result the model reads", async () => {
    const { agent, requests } = setup({}, [
      {
        toolCalls: [
          { name: "list_attachments" },
          { name: "fetch_attachment", input: { id: "ref_1" } },
          { name: "fetch_attachment", input: { id: "nope" } },
        ],
      },
      { text: "done" },
    ]);
    const state: Record<string, unknown> = {};
    createReferenceRegistry(state, [png, pdf]);
    const result = await agent.invoke("read them", { invocationState: state });
    expect(result.stopReason).toBe("endTurn");
    const [list, fetched, unknown] = requests[1]!.lastToolResults;
    expect(list!.content).toEqual([
      {
        type: "json",
        json: [
          { id: "ref_1", name: "photo.png", mimeType: "image/png", size: 2048 },
          { id: "ref_2", name: "plan.pdf", mimeType: "application/pdf", size: 48213 },
        ],
      },
    ]);
    expect(fetched!.status).toBe("success");
    expect(fetched!.content[1]).toEqual({ type: "image", mimeType: "image/png", name: "photo.png", data: png.data });
    expect(unknown!.status).toBe("error");
    expect(unknown!.content[0]).toEqual({
      type: "text",
      text: 'No attachment has id "nope". Known ids: ref_1, ref_2.',
    });
  });

  test("one hook instance shared by concurrent runs: each sees only its own attachments", async () => {
    const hook = new ReferenceHook({ enabled: true, inline: true, toolEnabled: false });
    const run = async (ref: typeof png) => {
      const seen: Message[][] = [];
      const agent = new Agent({
        model: new ScriptedModel({ delayMs: 1, script: (r) => (seen.push(r.messages), { text: "ok" }) }),
        hooks: [hook],
      });
      const state: Record<string, unknown> = {};
      createReferenceRegistry(state, [ref]);
      await agent.invoke("hi", { invocationState: state });
      return { seen, agent };
    };
    const [a, b] = await Promise.all([run(png), run({ ...png, id: "other", name: "other.png" })]);
    expect(texts(a.agent.messages[0]!)[1]).toContain("photo.png");
    expect(texts(b.agent.messages[0]!)[1]).toContain("other.png");
    expect(texts(b.agent.messages[0]!)[1]).not.toContain("photo.png");
    expect(a.seen[0]![0]!.content[0]).toMatchObject({ name: "photo.png" });
    expect(b.seen[0]![0]!.content[0]).toMatchObject({ name: "other.png" });
  });
});
