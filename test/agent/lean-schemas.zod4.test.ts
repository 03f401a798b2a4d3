/**
 * agent/shared/lean-schemas.ts with zod 4 (what a new install resolves): the package's schemas built with
 * zod 4 agree with zod 4's z.record and z.minLength/z.maxLength (see lean-schemas-cases.ts),
 * a JSON object with a constructor key included.
 */
import { vi } from "vitest";
import * as z from "zod4/v4/mini";
import { leanSchemaCases, OBJECTS } from "./lean-schemas-cases.js";

vi.mock("zod/v4/mini", async () => await import("zod4/v4/mini"));

leanSchemaCases(z as never, [...OBJECTS, ["a constructor key", JSON.parse('{"constructor": "x", "a": 1}')]]);
