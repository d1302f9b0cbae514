// The static scan behind design B's map (issue 29; reach-scan.ts runs it over real tarballs): which bare
// package names a package's code requires, and which of them it does not declare.
//
// Owns: `requiredNames(source)` (static `require('x')`, `__require('x')` (esbuild's shim), `require.resolve('x')`,
// `import.meta.resolve('x')`, `import … from 'x'`, `import 'x'`, `export … from 'x'`, `import('x')`; a template
// literal without `${` counts as a literal), `computedRequires(source)` (a `require(`, `require.resolve(`,
// `import.meta.resolve(` or `import(` whose argument is not one literal: what design B cannot see), and
// `scanPackage` (the package's declared names from its own package.json: dependencies, optionalDependencies,
// peerDependencies; bundled packages under its node_modules; its own name; Node builtins).
// Code files: .js .cjs .mjs .jsx, .ts .tsx .mts .cts but not declarations (.d.ts …), .vue .svelte .astro
// (a bundler resolves their imports like Node). A name in a comment or a string that only looks like a
// require counts too: the map errs toward more names (less precision, never a missed reach).
// Invariants: pure (no I/O); a package name is `x` or `@scope/x` of a bare specifier; specifiers with a
// scheme (`node:`, `virtual:`, `data:`), relative, absolute or `#` imports are never names.

import { builtinModules } from 'node:module';

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, name.split('/')[0] as string]));
const CODE = /\.(?:[cm]?js|jsx|tsx?|[cm]ts|vue|svelte|astro)$/;
const DECLARATION = /\.d\.(?:[cm]?ts|tsx)$/;
const NAME = /^(?:@[a-z0-9][\w.~-]*\/)?[a-z0-9_~][\w.~-]*$/i;

const LITERAL = String.raw`(?:'([^'\n\\]+)'|"([^"\n\\]+)"|\x60([^\x60$\n\\]+)\x60)`;
const STATIC_PATTERNS = [
  new RegExp(String.raw`(?<![\w$.])(?:__)?require\s*\(\s*${LITERAL}\s*\)`, 'g'),
  new RegExp(String.raw`(?<![\w$.])require\.resolve\s*\(\s*${LITERAL}`, 'g'),
  new RegExp(String.raw`(?<![\w$.])import\.meta\.resolve\s*\(\s*${LITERAL}`, 'g'),
  new RegExp(String.raw`(?<![\w$.])import\s*\(\s*${LITERAL}`, 'g'),
  // import x from 'y' / import {a} from 'y' / import 'y' / export * from 'y' / export {a} from 'y'
  new RegExp(
    String.raw`(?<![\w$.])(?:import(?!\s+type[\s{])|export(?!\s+type[\s{]))\s*(?:[\w$*{}\s,]*?\s*from\s*)?${LITERAL}`,
    'g',
  ),
];
const COMPUTED = new RegExp(
  String.raw`(?<![\w$.])(?<!function\s*)(?:require(?:\.resolve)?|import(?:\.meta\.resolve)?)\s*\(\s*(?!${LITERAL}\s*[,)])(?=[^\s)])`,
  'g',
);

/** The package name a bare specifier names, or undefined for anything that is not one. */
export function packageName(specifier: string): string | undefined {
  if (specifier === '' || /^[./#]/.test(specifier) || specifier.includes(':')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
  if (!NAME.test(name) || BUILTINS.has(name) || BUILTINS.has(specifier)) return undefined;
  return name;
}

/** The bare package names a source file requires or imports with a literal specifier. */
export function requiredNames(source: string): Set<string> {
  const out = new Set<string>();
  for (const pattern of STATIC_PATTERNS)
    for (const match of source.matchAll(pattern)) {
      const name = packageName(match[1] ?? match[2] ?? match[3] ?? '');
      if (name !== undefined) out.add(name);
    }
  return out;
}

/** How many `require(`/`require.resolve(`/`import(` calls in a source file take a computed argument. */
export function computedRequires(source: string): number {
  return [...source.matchAll(COMPUTED)].length;
}

/** What design B needs of one package version. */
export interface PackageScan {
  /** Bare names its code requires that it does not declare (sorted). */
  readonly undeclared: readonly string[];
  /** peerDependencies names its code requires: undeclared wherever the lockfile leaves the peer unresolved. */
  readonly peersRequired: readonly string[];
  /** Code files with at least one computed require or import. */
  readonly dynamicFiles: number;
  readonly codeFiles: number;
}

function keys(record: unknown): string[] {
  return record !== null && typeof record === 'object' ? Object.keys(record) : [];
}

/** Scan one unpacked package (paths relative to its folder) published as `name@version`. */
export function scanPackage(key: string, files: ReadonlyArray<{ path: string; bytes: Buffer }>): PackageScan {
  const own = key.slice(0, key.indexOf('@', 1));
  const manifestFile = files.find((file) => file.path === 'package.json');
  let manifest: Record<string, unknown> = {};
  try {
    manifest =
      manifestFile === undefined ? {} : (JSON.parse(manifestFile.bytes.toString('utf8')) as Record<string, unknown>);
  } catch {
    // An unreadable manifest declares nothing: every name counts as undeclared.
  }
  const declared = new Set([...keys(manifest.dependencies), ...keys(manifest.optionalDependencies), own]);
  const peers = new Set(keys(manifest.peerDependencies));
  for (const file of files) {
    const bundled = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file.path)?.[1];
    if (bundled !== undefined) declared.add(bundled);
  }
  const required = new Set<string>();
  let dynamicFiles = 0;
  let codeFiles = 0;
  for (const file of files) {
    if (!CODE.test(file.path) || DECLARATION.test(file.path)) continue;
    codeFiles++;
    const source = file.bytes.toString('utf8');
    for (const name of requiredNames(source)) required.add(name);
    if (computedRequires(source) > 0) dynamicFiles++;
  }
  const sorted = [...required].sort();
  return {
    undeclared: sorted.filter((name) => !declared.has(name) && !peers.has(name)),
    peersRequired: sorted.filter((name) => peers.has(name) && !declared.has(name)),
    dynamicFiles,
    codeFiles,
  };
}
