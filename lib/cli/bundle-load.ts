// Loading a CommonJS bundle of the CLI through node:vm with the V8 code cache `npm run build` made for it.
//
// Owns: the cache file's format (`<bundle>.v8cache`: one header line, an exact copy of the bundle's bytes, the
// V8 data), the rules that decide whether a cache may be handed to V8, and compiling + running the bundle
// with the same wrapper the build's training used (so V8 sees the same source).
// Why: Node 20 has no compile cache of its own (`module.enableCompileCache` is Node 22); without one V8
// pre-parses the whole bundle and compiles every function the command calls, on every start.
// Invariants:
// - Never stale: a cache is used only when its copy of the bundle equals the bundle's bytes exactly (one
//   memcmp; V8's own check compares the source's length only) and it was made by this V8
//   (`process.versions.v8`); V8 then checks its flags and version itself and may still reject it: the bundle
//   is then compiled from source, as without a cache. A missing, short or foreign cache file is no cache.
// - Read-only: nothing here writes. Caches are written by the build only (lib/build/bundle.mjs), into dist/ next
//   to their bundles; a run never writes into lockguard's own install, a user's home or a temp dir.
// - The bundle cannot `import()` (a vm.Script has no module loader of its own in Node 20 without an
//   experimental flag): its two external packages come through the `importExternal` argument
//   (core/external.ts), which the caller (dist/lockguard.cjs, loaded by Node itself) provides.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The cache file of a bundle. */
export function cachePathOf(bundle: string): string {
  return `${bundle}.v8cache`;
}

const MAGIC = 'lockguard-v8-cache 1';

/** The header line of a cache file for `source` made by this V8. */
export function cacheHeader(sourceLength: number, dataLength: number): string {
  return `${MAGIC} ${process.versions.v8} ${sourceLength} ${dataLength}\n`;
}

/** The V8 data in `cache` when it was made by this V8 from exactly `source`, else undefined. */
export function cachedDataFor(cache: Buffer, source: Buffer): Buffer | undefined {
  const end = cache.indexOf(10);
  if (end === -1 || end > 200) return undefined;
  const [magic, version, sourceLength, dataLength] = ((): string[] => {
    const words = cache.toString('latin1', 0, end).split(' ');
    return [`${words[0] ?? ''} ${words[1] ?? ''}`, words[2] ?? '', words[3] ?? '', words[4] ?? ''];
  })();
  if (magic !== MAGIC || version !== process.versions.v8 || Number(sourceLength) !== source.length) return undefined;
  const start = end + 1 + source.length;
  if (cache.length !== start + Number(dataLength) || Number(dataLength) <= 0) return undefined;
  if (!cache.subarray(end + 1, start).equals(source)) return undefined;
  return cache.subarray(start);
}

/** What a bundle is handed besides CommonJS's own five names. */
export type ImportExternal = (specifier: string) => Promise<unknown>;

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
  /** True when a cache was handed to V8 and V8 took it. */
  readonly cacheUsed: boolean;
  /** Run the bundle's top level once; returns its `module.exports`. */
  run(importExternal: ImportExternal): Record<string, unknown>;
}

/** Compile `bundle` (with its cache when one fits); `cache: false` compiles from source (the build's training). */
export function compileBundle(bundle: string, options: { cache?: boolean } = {}): CompiledBundle {
  const source = readFileSync(bundle);
  let cachedData: Buffer | undefined;
  if (options.cache !== false) {
    try {
      cachedData = cachedDataFor(readFileSync(cachePathOf(bundle)), source);
    } catch {
      cachedData = undefined;
    }
  }
  const text = source.toString('utf8');
  const script = new Script(text.startsWith(HEAD) ? text : wrapBundle(text), {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  return {
    script,
    cacheUsed: cachedData !== undefined && script.cachedDataRejected !== true,
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
