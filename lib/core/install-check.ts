// The pre-run check: does the installed tree hold what the lockfile says?
//
// Owns: `checkInstall`, which asks the workspace's package manager's adapter (package-managers/<pm>/
// install-check.ts: pnpm and npm compare the lockfile with their install marker, yarn and bun read their own
// records). Answers with a value: a mismatch is a verdict, not an error.
// Invariants: reads only what the table already kept (plus the readdirs each check needs); never writes.

import { coreOf } from './package-managers/registry.js';
import type { WorkspaceFingerprints } from './table.js';
import type { InstallCheck } from './install-verdict.js';

export { mainDocument, pnpmMarkerHolds, storeFolderName } from './package-managers/pnpm/install-check.js';

/** Check a full-scope table (it must have read the lockfile and the markers). */
export function checkInstall(table: WorkspaceFingerprints): InstallCheck {
  if (table.scope !== 'full') throw new Error('checkInstall needs a full-scope table');
  return coreOf(table.manager).checkInstall(table);
}
