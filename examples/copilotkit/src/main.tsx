/**
 * The page: CopilotKit's chat on a KabooAgent. An approval renders through useInterrupt as a card
 * whose details can be changed before approving; the transfer itself renders through useRenderTool,
 * so the decision stays in the chat ("Approved · sent 5 to bob", "Denied · nothing was sent"). A
 * message typed while an approval waits gets a clear answer instead of failing silently.
 */
import {
  type AbstractAgent as CopilotAgent,
  CopilotChat,
  CopilotKitProvider,
  useInterrupt,
  useRenderTool,
} from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import { useState } from "react";
import { createRoot } from "react-dom/client";
import * as z from "zod/v4";
import { makeAgent } from "./agent.js";
import { ApprovalCard, type KabooApproval } from "./approval-card.js";
import "./styles.css";

const THREAD = "thread-1";
// CopilotKit 1.74 types its agents with the @ag-ui/client 0.0.59 it pins; KabooAgent is an AG-UI 1.0
// agent, whose messages may carry content parts. The run, interrupt and resume events CopilotKit
// handles are the same in both, so the agent is handed over as CopilotKit's type.
const agent = makeAgent(THREAD) as unknown as CopilotAgent;

const transferArgs = z.object({ to: z.string(), amount: z.number() });

/** The transfer in the chat: waiting, then what the person decided and what happened. */
function TransferRow({
  status,
  to,
  amount,
  result,
}: {
  status: string;
  to?: string;
  amount?: number;
  result?: string;
}) {
  const what = `${amount ?? "?"} to ${to ?? "?"}`;
  if (status !== "complete")
    return (
      <div className="kaboo-row" data-testid="transfer-row" data-state="waiting">
        Transfer of {what}: waiting for your decision
      </div>
    );
  const denied = /denied|did not run/i.test(result ?? "");
  return (
    <div className="kaboo-row" data-testid="transfer-row" data-state={denied ? "denied" : "approved"}>
      <strong>{denied ? "Denied" : "Approved"}</strong> · {denied ? `nothing was sent (${what})` : (result ?? what)}
    </div>
  );
}

function Approvals() {
  useInterrupt({
    render: ({ interrupt, resolve }) => {
      const request = ((interrupt?.metadata as { kaboo?: KabooApproval } | undefined)?.kaboo ?? {}) as KabooApproval;
      return <ApprovalCard request={request} message={interrupt?.message} resolve={resolve} />;
    },
  });
  useRenderTool(
    {
      name: "transfer",
      parameters: transferArgs,
      render: ({ status, parameters, result }) => (
        <TransferRow
          status={status}
          to={parameters?.to}
          amount={parameters?.amount}
          result={typeof result === "string" ? result : undefined}
        />
      ),
    },
    [],
  );
  return null;
}

function App() {
  const [notice, setNotice] = useState("");
  return (
    <CopilotKitProvider
      agents__unsafe_dev_only={{ default: agent }}
      onError={({ error }) => {
        // A message sent while an approval waits cannot start a run: say so where the person looks.
        if (/pending interrupt|interrupt/i.test(error.message))
          setNotice("Your message was not sent: answer the approval above first (Approve or Deny).");
      }}
    >
      <Approvals />
      <main className="kaboo-page">
        <h1 className="kaboo-title">Kaboo Bank · CopilotKit</h1>
        <p className="kaboo-notice" role="alert" data-testid="notice" hidden={!notice}>
          {notice}
          <button type="button" className="kaboo-button secondary" onClick={() => setNotice("")}>
            OK
          </button>
        </p>
        {/* CopilotKit's icon buttons carry no name of their own: give them one (slot props). */}
        <CopilotChat
          threadId={THREAD}
          input={{
            sendButton: { "aria-label": "Send message" },
            addMenuButton: { "aria-label": "Add attachments or tools" },
          }}
        />
      </main>
    </CopilotKitProvider>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
