// The entry bundled into dist/pnpmfile.cjs, what `require('lockguard/pnpmfile')` loads: exactly the
// plugin's three exports, as a plain (extensible) CommonJS exports object.

export { hooks } from './hooks.js';
export { withLockguard } from './compose.js';
export { PNPMFILE_SHIM } from './shim.js';
