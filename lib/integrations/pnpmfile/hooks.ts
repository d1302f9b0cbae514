// This process's plugin hooks, built once when pnpm loads the pnpmfile (pnpm reads which hooks exist then).

import { createHooks, processContext, type PnpmfileHooks } from './plugin.js';

/** What `module.exports = require('lockguard/pnpmfile')` hands pnpm as `.hooks`. */
export const hooks: PnpmfileHooks = createHooks(processContext());
