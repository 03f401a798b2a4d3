// The loop on kaboo: `bare` (no hooks) or `full` (the hook stack of a real deployment, none of
// which stops the run). `lib` is the bundle of ../../src made by run.mjs.
export async function make(lib, variant) {
  const { Agent, ScriptedModel, tool, z } = lib;
  const echo = tool({
    name: "echo",
    description: "Echoes its input.",
    inputSchema: z.object({ text: z.string() }),
    callback: ({ text }) => text,
  });
  const transfer = tool({
    name: "transfer",
    description: "Never called: gated, so the gate is evaluated on every call.",
    inputSchema: z.object({ to: z.string() }),
    callback: () => "sent",
  });
  const hooks = (n) =>
    variant === "full"
      ? [
          new lib.InterruptHook(["transfer"]),
          new lib.MaxToolCallsGuard({ maxCalls: n + 10 }),
          new lib.ToolNameSanitizer(),
          new lib.ContextHook(),
          new lib.EventPublisher(() => {}, "bench"),
          new lib.StopGuard(() => false),
        ]
      : [];
  return async function run(n) {
    const script = Array.from({ length: n }, (_, i) => ({
      toolCalls: [{ name: "echo", input: { text: `ping ${i}` }, id: `call_${i}` }],
    }));
    script.push({ text: "done" });
    const agent = new Agent({ model: new ScriptedModel({ script }), tools: [echo, transfer], hooks: hooks(n) });
    const result = await agent.invoke("Echo ping, many times.");
    if (result.stopReason !== "endTurn" || agent.messages.length !== 2 * n + 2) {
      throw new Error(`kaboo ${variant}: unexpected end ${result.stopReason} after ${agent.messages.length} messages`);
    }
  };
}
