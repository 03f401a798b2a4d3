/**
 * The base of the package's errors and the caller's-mistake error, apart from the other errors
 * (`errors.ts`, which re-exports both): what a module that loads on demand (grant signing) throws,
 * without sharing all of `errors.ts` with the page in a chunk of its own.
 *
 * @module
 */

/** Base of every error this package throws. `name` is the subclass name. */
export abstract class KabooError extends Error {
  /** A stable, machine-readable code. */
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The caller used the API wrongly (bad option, wrong call order). */
export class UserError extends KabooError {
  readonly code = "USER_ERROR" as const;
}
