// `lockguard/pnpmfile`: the pnpmfile plugin. Re-exports only, plus the CommonJS view of them.
//
// `require('lockguard/pnpmfile')` resolves to dist/pnpmfile.cjs, commonjs.ts bundled as one CommonJS file
// (package.json "exports", condition "require"): pnpm 12 loads the pnpmfile in a fresh node helper for
// every hook call, and one CommonJS file costs about a quarter of this ESM graph's load (callgrind: +11 M
// vs +43 M instructions over `node -e 0`). `import` gets this ESM module. Where a require() of the ESM
// module happens anyway (require(esm), Node >= 20.19), it would return the module namespace, which is not
// extensible, and pnpm < 10.8 (measured on 10.7.1) assigns `filename` onto what the pnpmfile exports:
// the export named "module.exports" makes require() return a plain object instead.

import { withLockguard } from './compose.js';
import { hooks } from './hooks.js';
import { PNPMFILE_SHIM } from './shim.js';

export { hooks, withLockguard, PNPMFILE_SHIM };

const commonJsExports = { hooks, withLockguard, PNPMFILE_SHIM };
export { commonJsExports as 'module.exports' };
