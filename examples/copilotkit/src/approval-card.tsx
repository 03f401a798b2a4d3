/**
 * The approval card CopilotKit shows through useInterrupt: what the agent wants to do in words, the
 * recipient and amount as fields the person can change, and Approve / Deny. A changed detail goes
 * back as `editedArgs` (kaboo checks it again, and asks again when the recipient changed).
 */
import { useId, useState } from "react";

/** What kaboo puts in an approval interrupt's metadata (its ApprovalRequest). */
export interface KabooApproval {
  tool?: string;
  input?: { to?: unknown; amount?: unknown };
}

type Resolve = (payload: { approved: boolean; editedArgs?: Record<string, unknown> }) => void;

/** The card. */
export function ApprovalCard({
  request,
  message,
  resolve,
}: {
  request: KabooApproval;
  message?: string;
  resolve: Resolve;
}) {
  const id = useId();
  const asked = { to: String(request.input?.to ?? ""), amount: Number(request.input?.amount ?? 0) };
  const [to, setTo] = useState(asked.to);
  const [amount, setAmount] = useState(String(asked.amount));
  const value = Number(amount.replace(",", "."));
  const problem = !to.trim()
    ? "Enter who receives the money."
    : !Number.isFinite(value) || value <= 0
      ? "Enter an amount above 0, in numbers."
      : "";
  const approve = () => {
    const changed = to.trim() !== asked.to || value !== asked.amount;
    resolve(changed ? { approved: true, editedArgs: { to: to.trim(), amount: value } } : { approved: true });
  };
  return (
    <section className="kaboo-card" data-testid="approval" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="kaboo-card-title">
        Send {Number.isFinite(value) && value > 0 ? value : "?"} to {to.trim() || "?"}?
      </h2>
      {message ? <p className="kaboo-card-message">{message}</p> : null}
      <div className="kaboo-fields">
        <label htmlFor={`${id}-to`}>Recipient</label>
        <input id={`${id}-to`} value={to} onChange={(e) => setTo(e.target.value)} aria-describedby={`${id}-problem`} />
        <label htmlFor={`${id}-amount`}>Amount</label>
        <input
          id={`${id}-amount`}
          inputMode="decimal"
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          aria-invalid={problem.startsWith("Enter an amount") || undefined}
          aria-describedby={`${id}-problem`}
        />
      </div>
      <p id={`${id}-problem`} className="kaboo-problem" aria-live="polite">
        {problem}
      </p>
      <div className="kaboo-actions">
        <button type="button" className="kaboo-button secondary" onClick={() => resolve({ approved: false })}>
          Deny
        </button>
        <button type="button" className="kaboo-button primary" onClick={approve} disabled={problem !== ""}>
          Approve
        </button>
      </div>
    </section>
  );
}
