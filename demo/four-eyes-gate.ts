/**
 * The wire gates: a wire up to 10,000 is approved by the person who asked; a wire over it needs a
 * second person (four eyes: `approvals: { required: 1, eligible, forbidRequester: true }`, so
 * the requester's own yes never counts). Loaded with the runner.
 */
import {
  BeforeToolCallEvent,
  type HookCallback,
  type HookEvent,
  type HookEventClass,
  type HookProvider,
  HookRegistry,
} from "kaboo-workflows";
import { InterruptHook, type SubjectFn } from "kaboo-workflows/hooks";
import { FOUR_EYES_OVER } from "./four-eyes.js";
import { isPersona } from "./persona.js";

/** Whether a wire's arguments ask for more than {@link FOUR_EYES_OVER}. */
export function isLargeWire(input: unknown): boolean {
  const amount = Number((input as { amount?: unknown } | null)?.amount);
  return Number.isFinite(amount) && amount > FOUR_EYES_OVER;
}

/**
 * A hook that sees only the tool calls `when` accepts (other events pass through). `when` reads the
 * call's arguments as they are when the hook's turn comes, so an edit approved by an earlier gate
 * that makes a wire large is then asked of the second person.
 */
class OnlyFor implements HookProvider {
  readonly #inner: HookProvider;
  readonly #when: (input: unknown) => boolean;

  constructor(inner: HookProvider, when: (input: unknown) => boolean) {
    this.#inner = inner;
    this.#when = when;
  }

  registerHooks(registry: HookRegistry): void {
    const when = this.#when;
    class Filtered extends HookRegistry {
      // biome-ignore lint/suspicious/noExplicitAny: any event class, as HookRegistry.addCallback
      override addCallback<E extends HookEvent<any>>(
        eventClass: HookEventClass<E>,
        callback: HookCallback<E>,
      ): () => void {
        return registry.addCallback(eventClass, (event: E) =>
          event instanceof BeforeToolCallEvent && !when(event.toolUse.input) ? undefined : callback(event),
        );
      }
    }
    this.#inner.registerHooks(new Filtered());
  }
}

/**
 * The two wire gates, in this order.
 * @param agentName - The agent's name (interrupt names).
 * @param subject - A wire's subject.
 * @param ttlSeconds - Deadline of a wire up to 10,000.
 * @param fourEyesTtlSeconds - Deadline of a wire over it (the other person must get to it). Default 600.
 */
export function wireGates(agentName: string, subject: SubjectFn, ttlSeconds: number, fourEyesTtlSeconds = 600) {
  const single = new InterruptHook([{ pattern: "wire_abroad", subject }], { agentName, ttlSeconds, remember: "once" });
  const fourEyes = new InterruptHook(
    [{ pattern: "wire_abroad", subject, approvals: { required: 1, eligible: isPersona, forbidRequester: true } }],
    // Its own interrupt names: an edit that makes a wire large is asked again here, not overwritten.
    { agentName: `${agentName}-four-eyes`, ttlSeconds: fourEyesTtlSeconds },
  );
  return [new OnlyFor(single, (input) => !isLargeWire(input)), new OnlyFor(fourEyes, isLargeWire)];
}
