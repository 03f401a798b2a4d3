/**
 * The Standard Schema v1 and Standard JSON Schema v1 interfaces (standardschema.dev), copied as the
 * spec invites so the package needs no dependency for them: every schema library that implements
 * them (zod, valibot, arktype, …) fits `tool()` without an adapter.
 *
 * @module
 */

/** A schema that validates: what `tool()` accepts as `inputSchema`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

/** Types of the Standard Schema interface. */
export declare namespace StandardSchemaV1 {
  /** The `~standard` property. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  /** What `validate` returns. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A valid value, as the schema parsed it. */
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  /** An invalid value's issues. */
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One problem, with where it is. */
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** A path segment given as an object. */
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  /** The inferred types, carried for the type checker only. */
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The type a schema accepts. */
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  /** The type a schema produces. */
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/** A schema that can describe itself as JSON Schema (zod ≥ 4.2 classic, arktype, valibot through `toStandardJsonSchema`). */
export interface StandardJSONSchemaV1 {
  readonly "~standard": {
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}
