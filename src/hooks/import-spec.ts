/**
 * Import specs, the spec's way of naming a callable by where it lives: `"module#export"`,
 * `"module:export"` (the Python form) or `"module"` for its default export.
 *
 * @module
 */

const IDENT = /^[A-Za-z_$][\w$]*$/;

/**
 * Splits an import spec. The last `:` separates the export only when what follows is an
 * identifier, so `file:///x.js` and `https://…` stay whole; no export name means `default`.
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
  } else if (colon > 0 && IDENT.test(spec.slice(colon + 1))) {
    module = spec.slice(0, colon);
    exportName = spec.slice(colon + 1);
  }
  return module.trim() && IDENT.test(exportName) ? { module, exportName } : undefined;
}
