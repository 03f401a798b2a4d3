/**
 * The example's page: the AI SDK's chat client (through BankChat), each approval shown with its
 * reason and answered with a scope. The conversation id is kept in the address (#id), so a reload
 * continues it on the server's side; "always" is remembered by the server for this person.
 */
import { BankChat } from "./chat-client.js";

const log = document.querySelector<HTMLElement>("#log")!;
const form = document.querySelector<HTMLFormElement>("#composer")!;
const input = form.querySelector<HTMLInputElement>("input")!;
const id = location.hash.slice(1) || crypto.randomUUID();
location.hash = id;

const chat: BankChat = new BankChat({ id, onChange: () => render() });

function render(): void {
  log.replaceChildren();
  for (const message of chat.messages) {
    for (const part of message.parts) {
      if (part.type === "text") line(message.role, part.text);
      else if ("state" in part && part.state === "output-available") line("tool", JSON.stringify(part.output));
      else if ("state" in part && part.state === "output-denied") line("tool", "not run (denied)");
    }
  }
  for (const open of chat.openApprovals()) {
    const card = document.createElement("div");
    card.className = "approval";
    card.textContent = `${open.reason ?? "Allow this call?"} ${JSON.stringify(open.input)} `;
    for (const [label, scope] of [
      ["Once", "once"],
      ["This conversation", "thread"],
      ["Always", "always"],
      ["No", null],
    ] as const) {
      const button = document.createElement("button");
      button.textContent = label;
      button.onclick = () => void chat.answer(open.id, scope);
      card.append(button);
    }
    log.append(card);
  }
}

function line(who: string, text: string): void {
  const p = document.createElement("p");
  p.className = who;
  p.textContent = `${who}: ${text}`;
  log.append(p);
}

form.onsubmit = (event) => {
  event.preventDefault();
  if (!input.value.trim()) return;
  void chat.sendMessage({ text: input.value });
  input.value = "";
};
render();
