/**
 * The four-eyes bench of the edge tests: the shared bank behind a handler that names the person by
 * `x-user`; "wire <name> <amount>" asks for two approvals (by default two of bob, carol and dan,
 * never the requester); ann asks, others answer with their own credentials.
 */
import type { RunAgentInput } from "@ag-ui/core";
import { createAguiHandler, type AguiHandlerOptions } from "../../../src/agui/index.js";
import type { Agent } from "../../../src/index.js";
import { bankAgent, fourEyes, newBank, type Bank, type BankAgentOptions } from "../../fixtures/bank.js";
import { input } from "../helpers.js";
import { quietLogger, resumeBody, send, type Turn, withOptions } from "./fixtures.js";

export interface FourEyesOptions {
  /** The handler's stores, secret, bounds… (`trust.principal` and a quiet logger are set). */
  handler?: Partial<AguiHandlerOptions>;
  /** The bank agent's options; its gate defaults to four eyes, remembering nothing. */
  bank?: (bank: Bank) => BankAgentOptions;
  /** What ann's asking turn carries besides its message (state, forwarded props). */
  asking?: Partial<RunAgentInput>;
}

/** A handler over a four-eyes bank, and ann asking, and anyone answering, on a thread. */
export function fourEyesEdge(o: FourEyesOptions = {}) {
  const bank = newBank();
  const agent = (): Agent =>
    bankAgent(bank, {
      gate: { remember: false, approvals: fourEyes, agentName: "" },
      done: "done",
      otherwise: "hi",
      result: () => "sent",
      ...o.bank?.(bank),
    });
  const handle = createAguiHandler(
    withOptions(
      { agent, logger: quietLogger(), trust: { principal: (request) => request.headers.get("x-user") ?? "" } },
      o.handler,
    ),
  );
  const as = (who: string) => ({ "x-user": who });
  const ask = (threadId: string, content = "wire mallory 20000") =>
    send(
      handle,
      input({ threadId, messages: [{ id: crypto.randomUUID(), role: "user", content }], ...o.asking }),
      as("ann"),
    );
  const answer = (threadId: string, turn: Turn, who: string, payload: unknown = { approved: true }, over = {}) =>
    send(handle, { ...resumeBody(threadId, turn, payload), runId: crypto.randomUUID(), ...over }, as(who));
  return { bank, transfers: bank.transfers, handle, as, ask, answer };
}

/** Who has approved so far, as the paused turn's interrupt metadata says. */
export const approvedBy = (turn: Turn) =>
  (
    turn.events.findLast((e) => e.type === "RUN_FINISHED") as unknown as {
      outcome?: { interrupts?: { metadata?: { kaboo?: { approvals?: { approvedBy: { principal: string }[] } } } }[] };
    }
  )?.outcome?.interrupts?.[0]?.metadata?.kaboo?.approvals?.approvedBy.map((a) => a.principal);
