// What `lockguard hook` does inside an npm root lifecycle script (preinstall/postinstall).
//
// Owns: reporting "an npm command ran its root install scripts here" to the live runs of the workspace and,
// under `refuse`, judging whether npm already rewrote a lockfile the run recorded.
// Measured (npm 11): `npm install` and `npm ci` run the root's preinstall/install/postinstall/prepare, and
// `npm rebuild` its preinstall/install/postinstall; `npm install <pkg>`, `uninstall`, `update`, `dedupe`,
// `prune`, `exec` run none. The root preinstall runs AFTER npm reified node_modules and wrote
// package-lock.json, so npm cannot be stopped at the source: under `refuse` a rewrite makes the npm command
// fail right after it, and the run's own check stays the verdict.
// Invariants: outside a run it costs one failed readdir; never throws for a ledger problem; returns a value,
// never prints or exits.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileDigest } from '../../core/digest.js';
import { errnoCode } from '../../core/errors.js';
import { loadRun } from '../../run/ledger.js';
import { liveRunsFor, reportToRun, type LiveRun } from '../../run/live.js';

export interface HookOutcome {
  /** The live runs reported to. */
  readonly runs: readonly LiveRun[];
  /** Lockfiles (root-relative) a refusing run recorded and npm has rewritten by now. */
  readonly refusedFor: readonly string[];
}

/** Lockfiles of `run` whose bytes differ now from what the run read (unreadable run: none). */
function rewrittenLockfiles(root: string, run: LiveRun): string[] {
  let entries: ReturnType<typeof loadRun>['record']['entries'];
  try {
    entries = loadRun(run.dir).record.entries;
  } catch {
    return [];
  }
  const moved: string[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'lockfile') continue;
    let now: string | null;
    try {
      const path = join(root, entry.path);
      // Never open what is not a regular file (a FIFO would block): it is not what the run read, so it moved.
      now = statSync(path).isFile() ? fileDigest(readFileSync(path)) : 'not-a-file';
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') continue;
      now = null;
    }
    if (now !== entry.digest) moved.push(entry.path);
  }
  return moved;
}

/** Report to the live runs of `root`; under refuse, name the lockfiles npm rewrote (so the CLI fails). */
export function npmLifecycleHook(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  pid: number,
): HookOutcome {
  const runs = liveRunsFor(root, env);
  if (runs.length === 0) return { runs, refusedFor: [] };
  const command = env['npm_command'];
  const hook = env['npm_lifecycle_event'] ?? 'unknown';
  const refusing = runs.filter((run) => run.policy === 'refuse');
  // `npm ci` never writes the lockfile (it fails when out of sync); only `npm install` can have rewritten it.
  const refusedFor =
    command === 'install' ? [...new Set(refusing.flatMap((run) => rewrittenLockfiles(root, run)))] : [];
  for (const run of runs) {
    reportToRun(run, {
      type: 'hook',
      source: 'npm-lifecycle',
      hook,
      ...(command === undefined ? {} : { command }),
      pid,
      ...(refusedFor.length > 0 ? { refused: true } : {}),
    });
  }
  return { runs, refusedFor };
}
