// Loading a CommonJS bundle of the CLI through node:vm, compiled from source or from the code cache the
// user's own Node wrote on an earlier run (code-cache.ts).
//
// Owns: compiling + running a bundle with the wrapper the build wrote around it (wrapBundle), so the launcher
// can hand it `__lockguardImport`; the bundle's `require` (Node's builtins, a host's shared modules, the
// launcher's chunks: core/chunks.ts); and, when the command is done, writing the code cache where there was
// none or V8 rejected it (`saveCodeCache`).
// Why no code cache ships: the build used to ship V8 code caches (`<bundle>.v8cache`, 7 MB of a 13.8 MB
// install) that only the exact Node build that ran `npm run build` accepts; every other Node rejected them and
// paid the read (issue 34; lib/README.md "How the CLI ships"). The cache is written on the user's machine
// instead, by the Node that reads it.
// Invariants:
// - What the command prints and its exit code never depend on the cache (code-cache.ts swallows every fault).
// - The bundle cannot `import()` (a vm.Script has no module loader of its own in Node 20 without an
//   experimental flag): its two external packages come through the `importExternal` argument
//   (core/external.ts), which the caller (dist/lockguard.cjs, loaded by Node itself) provides.

import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { codeCacheFile, readCodeCache, writeCodeCache } from './code-cache.js';
import { nodeModule } from '../core/lazy-builtins.js';

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

const SHARED = 'lockguard-shared:';
const CHUNK = 'lockguard-chunk:';

/** Loads a chunk by name (`pm-pnpm`) and returns its exports: the launcher's, lib/cli/bin.ts. */
type LoadChunk = (name: string) => unknown;

/**
 * The bundle's `require`. A bundle asks it only for Node builtins (the build bundles every module of lockguard's
 * own, and its two external packages come through `importExternal`), which Node hands out from any base: no
 * `createRequire` (node:module, with the ES loader and source-map modules it loads, cost every command about
 * 0.2 ms), except for a name that is no builtin.
 */
function builtinRequire(bundle: string): (id: string) => unknown {
  return (id) => process.getBuiltinModule(id) ?? nodeModule().createRequire(bundle)(id);
}

/**
 * `require`, but `lockguard-shared:<path>` is `shared[<path>]` (a name `shared` lacks is a build fault) and
 * `lockguard-chunk:<name>` is what `loadChunk` returns for it (none handed: a build fault too).
 */
function bundleRequire(
  require: (id: string) => unknown,
  shared: Readonly<Record<string, unknown>> | undefined,
  loadChunk: LoadChunk | undefined,
  bundle: string,
) {
  return (id: string): unknown => {
    if (id.startsWith(CHUNK)) {
      if (loadChunk === undefined) throw new Error(`${bundle} asks for ${id}, and nothing loads chunks for it`);
      return loadChunk(id.slice(CHUNK.length));
    }
    if (!id.startsWith(SHARED)) return require(id);
    const module = shared?.[id.slice(SHARED.length)];
    if (module === undefined) throw new Error(`${bundle} asks for ${id}, which the bundle loading it does not share`);
    return module;
  };
}

export interface CompiledBundle {
  readonly script: Script;
  /**
   * Run the bundle's top level once; returns its `module.exports`. `shared`: modules the bundle (a chunk:
   * core/chunks.ts) takes from the bundle that loads it, required as `lockguard-shared:<path>`; `loadChunk`:
   * what its `require('lockguard-chunk:<name>')` returns.
   */
  run(
    importExternal: ImportExternal,
    shared?: Readonly<Record<string, unknown>>,
    loadChunk?: LoadChunk,
  ): Record<string, unknown>;
  /** After the command: write the code cache where there was none or V8 rejected it (never throws). */
  saveCodeCache(): void;
}

/**
 * Compile `bundle` (wrapped here when the build did not wrap it), from the code cache where `env` allows one
 * and a valid one is there (code-cache.ts); without `env`, from source and no cache.
 */
export function compileBundle(bundle: string, env?: NodeJS.ProcessEnv): CompiledBundle {
  // latin1: the build keeps every bundle ASCII (lib/build/bundle.mjs), where latin1 reads the same text; a utf8
  // read decodes through one more copy: +190 page faults of a 0.6 MB bundle (about 3 ms where a fresh page costs
  // 14 us, as on the machines the bench runs on).
  const text = readFileSync(bundle, 'latin1');
  const cacheFile = env === undefined ? undefined : codeCacheFile(bundle, text, env);
  const cachedData = cacheFile === undefined ? undefined : readCodeCache(cacheFile);
  const script = new Script(text.startsWith(HEAD) ? text : wrapBundle(text), { filename: bundle, cachedData });
  return {
    script,
    saveCodeCache() {
      if (cacheFile === undefined || (cachedData !== undefined && script.cachedDataRejected !== true)) return;
      try {
        writeCodeCache(cacheFile, script.createCachedData());
      } catch {
        // No cache this time.
      }
    },
    run(importExternal, shared, loadChunk) {
      const module = { exports: {} as Record<string, unknown> };
      const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
      const require = builtinRequire(bundle);
      wrapper.call(
        module.exports,
        module.exports,
        bundleRequire(require, shared, loadChunk, bundle),
        module,
        bundle,
        dirname(bundle),
        importExternal,
      );
      return module.exports;
    },
  };
}
