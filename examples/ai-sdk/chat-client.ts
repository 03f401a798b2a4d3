/**
 * The example's chat client: the AI SDK's own `AbstractChat` (what `useChat` wraps) with a plain state
 * that calls back on every change, and the answer to an approval with a scope.
 */
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type ChatState,
  type ChatStatus,
  type UIMessage,
} from "ai";
import { approvalReason, type ApprovalScope } from "kaboo-workflows/ai-sdk";

class ListState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  readonly #changed: () => void;
  constructor(changed: () => void) {
    this.#changed = changed;
  }
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
    this.#changed();
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
    this.#changed();
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
    this.#changed();
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** Options of {@link BankChat}. */
export interface BankChatOptions {
  /** The conversation (the server's thread). */
  id: string;
  /** Default `/api/chat`. */
  api?: string;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Called on every change (render here). */
  onChange?: () => void;
}

/** The AI SDK's chat client, sending approvals back as soon as every open one is answered. */
export class BankChat extends AbstractChat<UIMessage> {
  constructor(options: BankChatOptions) {
    const changed = () => options.onChange?.();
    super({
      id: options.id,
      state: new ListState(changed),
      transport: new DefaultChatTransport({
        api: options.api ?? "/api/chat",
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  }

  /** The open approval requests: `{ id, input, reason }` (the reason names the payee). */
  openApprovals(): { id: string; input: unknown; reason: string | undefined }[] {
    return this.messages.flatMap((m) =>
      m.parts.flatMap((p) =>
        "approval" in p && p.state === "approval-requested" && p.approval
          ? [{ id: p.approval.id, input: p.input, reason: p.approval.requestReason }]
          : [],
      ),
    );
  }

  /** Answers an approval: `scope` for yes (once, this conversation, always), `null` for no. */
  async answer(id: string, scope: ApprovalScope | null): Promise<void> {
    if (scope === null) await this.addToolApprovalResponse({ id, approved: false, reason: "The person said no." });
    else await this.addToolApprovalResponse({ id, approved: true, reason: approvalReason({ scope }) });
  }

  /** The assistant's texts, in order. */
  texts(): string[] {
    return this.messages
      .filter((m) => m.role === "assistant")
      .flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])));
  }
}
