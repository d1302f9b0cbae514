// Loading lockguard's two external runtime packages on demand: execa (the runners' dry runs for `lockguard
// plan`) and @pnpm/lockfile-file (pnpm 8 lockfiles, for slices).
//
// Owns: `importExternal`. The CLI's bundle is compiled through node:vm
// (cli/bundle-load.ts), and code compiled that way cannot `import()` in Node 20; its launcher (dist/lockguard.cjs,
// loaded by Node itself) hands every bundle an importer as `__lockguardImport`. Everywhere else (the ES module
// library under dist/lib) there is none, and this module imports directly.
// Invariants: only these two names; the package is resolved from lockguard's own install, never the workspace.

/** Provided by the bundle's wrapper (cli/bundle-load.ts); undeclared (typeof 'undefined') in the ES modules. */
declare const __lockguardImport: ((specifier: string) => Promise<unknown>) | undefined;

export function importExternal(specifier: 'execa'): Promise<typeof import('execa')>;
export function importExternal(specifier: '@pnpm/lockfile-file'): Promise<typeof import('@pnpm/lockfile-file')>;
export function importExternal(specifier: 'execa' | '@pnpm/lockfile-file'): Promise<unknown> {
  if (typeof __lockguardImport === 'function') return __lockguardImport(specifier);
  return specifier === 'execa' ? import('execa') : import('@pnpm/lockfile-file');
}
