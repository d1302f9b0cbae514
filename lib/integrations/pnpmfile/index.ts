// `lockguard/pnpmfile`: the pnpmfile plugin. `module.exports = require('lockguard/pnpmfile')` gives pnpm this
// module's namespace, whose `hooks` is the plugin. Re-exports only.

export { hooks } from './hooks.js';
export { withLockguard } from './compose.js';
export { PNPMFILE_SHIM } from './shim.js';
