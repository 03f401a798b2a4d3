/**
 * Import specs, the spec's way of naming a callable by where it lives: `"module#export"`,
 * `"module:export"` (the Python form) or `"module"` for its default export.
 *
 * @module
 */

const IDENT = /^[A-Za-z_$][\w$]*$/;
// Specifier schemes whose colon is part of the module name (`npm:lodash`, `node:path`, `jsr:@std/x`).
const SCHEME = /^(?:npm|node|jsr|https?|file|data|blob)$/i;

/**
 * Splits an import spec. The last `:` separates the export only when what follows is an
 * identifier and what precedes it is not a scheme, so `file:///x.js`, `https://…` and `npm:lodash` stay
 * whole (`npm:lodash:map` names `map`); no export name means `default`.
 * @param spec - The import spec.
 * @returns The module specifier and the export name, or `undefined` when the spec is empty or its
 *   export name is not an identifier.
 */
export function splitImportSpec(spec: string): { module: string; exportName: string } | undefined {
  const hash = spec.lastIndexOf("#");
  const colon = spec.lastIndexOf(":");
  let module = spec;
  let exportName = "default";
  if (hash >= 0) {
    module = spec.slice(0, hash);
    exportName = spec.slice(hash + 1);
  } else if (colon > 0 && IDENT.test(spec.slice(colon + 1)) && !SCHEME.test(spec.slice(0, colon))) {
    module = spec.slice(0, colon);
    exportName = spec.slice(colon + 1);
  }
  return module.trim() && IDENT.test(exportName) ? { module, exportName } : undefined;
}
