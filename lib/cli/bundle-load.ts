// Loading a CommonJS bundle of the CLI through node:vm, compiled from source.
//
// Owns: compiling + running a bundle with the wrapper the build wrote around it (wrapBundle), so the launcher
// can hand it `__lockguardImport`.
// Why no code cache: the build used to ship V8 code caches (`<bundle>.v8cache`, 7 MB of a 13.8 MB install)
// that only the exact Node build that ran `npm run build` accepts; every other Node (another patch release,
// Node 22, 24) rejected them and paid the read. Measured (issue 34; numbers in lib/README.md "How the CLI ships"):
// on the build's Node they saved a few ms of CPU per command; on any other Node nothing. None ship now.
// Invariants:
// - Read-only: nothing here writes (no cache in lockguard's install, a user's home or a temp dir).
// - The bundle cannot `import()` (a vm.Script has no module loader of its own in Node 20 without an
//   experimental flag): its two external packages come through the `importExternal` argument
//   (core/external.ts), which the caller (dist/lockguard.cjs, loaded by Node itself) provides.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** What a bundle is handed besides CommonJS's own five names. */
type ImportExternal = (specifier: string) => Promise<unknown>;

// The bundle's scope: CommonJS's five names plus `__lockguardImport` (core/external.ts). The build writes each
// bundle already wrapped (wrapBundle), so its bytes are the script V8 compiles: one string, no copy.
const HEAD = '(function (exports, require, module, __filename, __dirname, __lockguardImport) {';
const TAIL = '\n})';

/** What the build writes for a bundle esbuild made: the function expression `compileBundle` compiles. */
export function wrapBundle(code: string): string {
  return `${HEAD}${code.replace(/^#!/, '//')}${TAIL}`;
}

export interface CompiledBundle {
  readonly script: Script;
  /** Run the bundle's top level once; returns its `module.exports`. */
  run(importExternal: ImportExternal): Record<string, unknown>;
}

/** Compile `bundle` from source (wrapped here when the build did not wrap it). */
export function compileBundle(bundle: string): CompiledBundle {
  const text = readFileSync(bundle, 'utf8');
  const script = new Script(text.startsWith(HEAD) ? text : wrapBundle(text), { filename: bundle });
  return {
    script,
    run(importExternal) {
      const module = { exports: {} as Record<string, unknown> };
      const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
      wrapper.call(
        module.exports,
        module.exports,
        createRequire(bundle),
        module,
        bundle,
        dirname(bundle),
        importExternal,
      );
      return module.exports;
    },
  };
}
