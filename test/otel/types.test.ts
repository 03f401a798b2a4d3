// The public types of kaboo-workflows/otel: what the hook takes, and what the helpers give.
import type { Context, SpanContext, Tracer } from "@opentelemetry/api";
import { describe, expectTypeOf, test } from "vitest";
import type { HookProvider, InvocationState } from "../../src/index.js";
import {
  acceptTraceparent,
  parentFromTraceparent,
  spanContextFromTraceparent,
  TracingHook,
  type ParentOption,
  type PrincipalMode,
  type TracingHookOptions,
} from "../../src/otel/index.js";

describe("kaboo-workflows/otel types", () => {
  test("TracingHook is a HookProvider built from optional options", () => {
    expectTypeOf(TracingHook).toBeConstructibleWith();
    expectTypeOf(TracingHook).toBeConstructibleWith({
      tracer: {} as Tracer,
      captureContent: true,
      principals: "sha256",
    });
    expectTypeOf(new TracingHook()).toMatchTypeOf<HookProvider>();
    expectTypeOf<TracingHookOptions["principals"]>().toEqualTypeOf<PrincipalMode | undefined>();
    expectTypeOf<PrincipalMode>().toEqualTypeOf<"plain" | "sha256" | "omit">();
  });

  test("a parent is a context, or a function of the run's state; a header may give none", () => {
    expectTypeOf<Context>().toMatchTypeOf<ParentOption>();
    expectTypeOf<(state: InvocationState) => Context | undefined>().toMatchTypeOf<ParentOption>();
    expectTypeOf(parentFromTraceparent).returns.toEqualTypeOf<Context | undefined>();
    expectTypeOf(spanContextFromTraceparent).returns.toEqualTypeOf<SpanContext | undefined>();
    expectTypeOf(acceptTraceparent).parameters.toEqualTypeOf<[InvocationState, string | null | undefined]>();
    expectTypeOf(new TracingHook({ parent: parentFromTraceparent(null) })).toMatchTypeOf<HookProvider>();
  });
});
