// doctor's check of committed slice files (`init --sound-keys=committed`): git tracks every project's
// `.lockguard-slice`, ignores none, and each holds what the slice writer would write now, committed.
//
// Owns: `committedProof(root, env)`: one finding (runner `git`) naming each file that is missing, stale,
// untracked, ignored or changed since the last commit, with the fix.
// Invariants: read-only (the expected text is computed, never written); three git spawns at most; no
// repository or no git is a warning (the check cannot be made), never a failure.

import type { Env } from '../../core/env.js';
import { changedFromHead, trackedAndIgnored } from '../git.js';
import { GIT_ADD_SLICES } from '../../ledger/slice-files.js';
import { staleSliceFiles } from '../../ledger/slice-pass.js';
import { someOf } from './findings.js';
import { SLICE_FILE, type SoundCheck } from './types.js';
const REWRITE = `lockguard key --write-slices && ${GIT_ADD_SLICES}`;

export async function committedProof(root: string, env: Env): Promise<SoundCheck | undefined> {
  const stale = await staleSliceFiles(root);
  if (stale === undefined) return undefined;
  const files = stale.files;
  const notCurrent = [...stale.missing, ...stale.differ];
  if (notCurrent.length > 0)
    return {
      runner: 'git',
      level: 'fail',
      detail: `${notCurrent.length} of ${files.length} committed ${SLICE_FILE} files are missing or stale (written for another lockfile), so the runners' keys fold old slices: ${someOf(notCurrent)}`,
      fix: REWRITE,
    };
  const git = trackedAndIgnored(root, files, env);
  if (git === undefined)
    return {
      runner: 'git',
      level: 'warn',
      detail: `cannot check that git tracks the ${SLICE_FILE} files (no repository here, or git failed)`,
      fix: `Commit them: ${GIT_ADD_SLICES}`,
    };
  const ignored = files.filter((file) => git.ignored.has(file));
  if (ignored.length > 0)
    return {
      runner: 'git',
      level: 'fail',
      detail: `a .gitignore rule ignores ${ignored.length} ${SLICE_FILE} file(s), so a new project's file is never committed: ${someOf(ignored)}`,
      fix: `Remove the rule (git check-ignore -v ${ignored[0] ?? SLICE_FILE} names it), or run lockguard init --sound-keys (ignored mode)`,
    };
  const untracked = files.filter((file) => !git.tracked.has(file));
  if (untracked.length > 0)
    return {
      runner: 'git',
      level: 'fail',
      detail: `git does not track ${untracked.length} of ${files.length} ${SLICE_FILE} files, so a fresh clone has none and the runners' keys leave the slices out: ${someOf(untracked)}`,
      fix: `${GIT_ADD_SLICES}, then commit`,
    };
  const changed = changedFromHead(root, files, env);
  if (changed.length > 0)
    return {
      runner: 'git',
      level: 'warn',
      detail: `${changed.length} ${SLICE_FILE} file(s) changed since the last commit (current here, not yet committed): ${someOf(changed)}`,
      fix: `Commit them with the lockfile: ${GIT_ADD_SLICES}`,
    };
  return {
    runner: 'git',
    level: 'ok',
    detail: `all ${files.length} ${SLICE_FILE} files are committed and current (committed mode)`,
  };
}
