// `lockguard/pnpmfile`: the pnpmfile plugin. Re-exports only, plus the CommonJS view of them.
//
// `.pnpmfile.cjs` loads this ESM module with require() (Node >= 20.19). Without help that returns the module
// namespace, which is not extensible, and pnpm < 10.8 (measured on 10.7.1) assigns `filename` onto what the
// pnpmfile exports: "Cannot add property filename, object is not extensible". The export named
// "module.exports" makes require() return a plain object instead (Node's require(esm) interop).

import { withLockguard } from './compose.js';
import { hooks } from './hooks.js';
import { PNPMFILE_SHIM } from './shim.js';

export { hooks, withLockguard, PNPMFILE_SHIM };

const commonJsExports = { hooks, withLockguard, PNPMFILE_SHIM };
export { commonJsExports as 'module.exports' };
