// yarn's lockfile reader for per-project slices: berry (a `__metadata` block) or v1 (`# yarn lockfile v1`,
// its importers from the workspace manifests). slices/slices.ts asks it through yarn's adapter.
//
// Owns: `yarnSliceGraph` and the refusal of a yarn.lock that is neither. Invariants: never echoes lockfile
// contents in errors.

import { LockguardError } from '../../errors.js';
import type { LockfileGraph } from '../../slices/graph.js';
import { indexYarnBerry, yarnBerrySliceGraph } from './berry.js';
import { classicWorkspaces, indexYarnClassic, yarnClassicSliceGraph } from './classic.js';

/** yarn.lock: berry (a `__metadata` block) or classic (`# yarn lockfile v1`, workspaces from the manifests). */
export function yarnSliceGraph(text: string, absPath: string, root: string, redacted: boolean): LockfileGraph {
  const head = text.slice(0, 2048);
  if (/^__metadata:/m.test(head)) return yarnBerrySliceGraph(indexYarnBerry(text, absPath));
  const header = /^# yarn lockfile v1$/m.exec(head)?.[0];
  if (header !== undefined)
    return yarnClassicSliceGraph(indexYarnClassic(text, absPath), classicWorkspaces(root, redacted), header);
  throw new LockguardError(
    'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
    `The lockfile at "${absPath}" is neither a yarn berry lockfile (no __metadata block) nor a yarn v1 one (no "# yarn lockfile v1" line).`,
    {
      path: absPath,
      hint: 'Let yarn rewrite it (yarn install), or use the whole-table key (lockguard key).',
    },
  );
}
