// doctor's nx check, as data: can lockguard withhold entries from the nx this workspace runs?
//
// Owns: `nxChecks(root, env)`: nothing where nx is not configured (no nx.json, no nx in the root manifest, no
// lerna.json: an nx that is only another package's dependency is no runner of this workspace); else the nx
// the commands start (which.ts: the workspace's own, else Lerna's) and where its cache is (cache.ts, as a
// guarded run resolves it): a failure with the fix where that cannot be resolved (nothing of it is guarded),
// else the verdict of task-db.ts `nxSupport` on that version.
// Invariants: never runs nx but to ask where its cache is (as a guarded run does; remembered in the ledger).

import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import { isLockguardError } from '../../../core/errors.js';
import type { DoctorCheck, Env } from '../adapter.js';
import { present } from '../workspace-files.js';
import { NX_CACHE_FIX, resolveNxCache } from './cache.js';
import { NX_GUARDED_MAJORS, nxSupport } from './task-db.js';
import { whichNx } from './which.js';

/**
 * nx in the root manifest's dependencies. Read as every workspace file is (bounded, never a FIFO or device: a
 * package.json linked to /dev/zero once grew doctor to 17 GB); a manifest that cannot be read is the table
 * check's to report.
 */
function nxInManifest(root: string): boolean {
  try {
    const text = readConfigText(join(root, 'package.json'), root);
    const manifest = text === undefined ? null : (JSON.parse(text) as Record<string, unknown> | null);
    return ['dependencies', 'devDependencies'].some((field) => {
      const deps = manifest?.[field];
      return deps !== null && typeof deps === 'object' && 'nx' in deps;
    });
  } catch {
    return false;
  }
}

/** Where the cache of the nx the commands start is, or why it cannot be said. */
function cacheProblem(root: string, env: Env): string | undefined {
  try {
    resolveNxCache(root, env);
    return undefined;
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return error.message;
  }
}

/** doctor's nx check (none where this workspace does not configure nx or Lerna). */
export function nxChecks(root: string, env: Env): DoctorCheck[] {
  const lerna = present(join(root, 'lerna.json'));
  if (!present(join(root, 'nx.json')) && !lerna && !nxInManifest(root)) return [];
  const nx = whichNx(root);
  const version = nx?.version ?? 'version unknown';
  const who = nx?.via === 'lerna' ? `nx ${version} (Lerna's own: lerna run starts it)` : `nx ${version}`;
  const support = nxSupport(nx?.version, env);
  const range = `nx ${NX_GUARDED_MAJORS.first} to ${NX_GUARDED_MAJORS.last}`;
  if (support.kind === 'unguarded') {
    const fix =
      env['NX_CACHE_FAILURES'] === 'true' && Number(version.split('.')[0]) >= NX_GUARDED_MAJORS.first
        ? 'Unset NX_CACHE_FAILURES where lockguard guards the run.'
        : `Upgrade nx to ${range} (nx migrate).`;
    return [
      {
        check: 'nx',
        level: 'fail',
        detail: `${support.why ?? `${who} cannot be guarded`}: lockguard run moves none of its stale entries, and nx may replay them`,
        fix,
      },
    ];
  }
  const problem = cacheProblem(root, env);
  if (problem !== undefined)
    return [
      {
        check: 'nx',
        level: 'fail',
        detail: `the nx cache is not guarded: ${problem}; lockguard run withholds nothing of it, and lockguard verify refuses saves keyed on a run that moved`,
        fix: NX_CACHE_FIX,
      },
    ];
  if (support.why !== undefined)
    return [
      { check: 'nx', level: 'warn', detail: support.why, fix: `Check it with a guarded run, or pin nx to ${range}.` },
    ];
  const how =
    support.kind === 'task-db'
      ? "its task DB answers hits by itself, so lockguard first marks a withheld entry's row not replayable (through this nx), then moves the entry"
      : "a withheld entry's folder leaving the cache is a miss";
  return [{ check: 'nx', level: 'ok', detail: `${who} is guarded: ${how}` }];
}
