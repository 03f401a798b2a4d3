/** The page: CopilotKit's chat on a KabooAgent, with approvals rendered through useInterrupt. */
import {
  type AbstractAgent as CopilotAgent,
  CopilotChat,
  CopilotKitProvider,
  useInterrupt,
} from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import { createRoot } from "react-dom/client";
import { makeAgent } from "./agent.js";

const THREAD = "thread-1";
// CopilotKit 1.74 types its agents with the @ag-ui/client 0.0.59 it pins; KabooAgent is an AG-UI 1.0
// agent, whose messages may carry content parts. The run, interrupt and resume events CopilotKit
// handles are the same in both, so the agent is handed over as CopilotKit's type.
const agent = makeAgent(THREAD) as unknown as CopilotAgent;

/** What kaboo puts in an approval interrupt's metadata (its ApprovalRequest). */
interface KabooApproval {
  tool?: string;
  input?: unknown;
}

function Approvals() {
  useInterrupt({
    render: ({ interrupt, resolve }) => {
      const request = ((interrupt?.metadata as { kaboo?: KabooApproval } | undefined)?.kaboo ?? {}) as KabooApproval;
      return (
        <div className="approval" data-testid="approval">
          <p>{interrupt?.message ?? `Allow ${request.tool}?`}</p>
          <pre>{JSON.stringify(request.input)}</pre>
          <button type="button" onClick={() => resolve({ approved: true })}>
            Approve
          </button>
          <button type="button" onClick={() => resolve({ approved: false })}>
            Deny
          </button>
        </div>
      );
    },
  });
  return null;
}

function App() {
  return (
    <CopilotKitProvider agents__unsafe_dev_only={{ default: agent }}>
      <Approvals />
      <CopilotChat threadId={THREAD} />
    </CopilotKitProvider>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
