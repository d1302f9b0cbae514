// doctor's nx check, as data: can lockguard withhold entries from the nx this workspace runs?
//
// Owns: `nxChecks(root, env)`: nothing where nx is neither configured (nx.json) nor installed; else the
// verdict of task-db.ts `nxSupport` on the installed version (node_modules/nx/package.json): guarded
// (how a withheld entry becomes a miss), a warning for a version outside the measured range, or a failure
// where lockguard can withhold nothing (older than 20, or NX_CACHE_FAILURES=true).
// Invariants: read-only (one package.json, one lstat); never runs nx.

import { join } from 'node:path';
import type { DoctorCheck, Env } from '../adapter.js';
import { present } from '../workspace-files.js';
import { NX_GUARDED_MAJORS, nxSupport, nxVersionAt } from './task-db.js';

/** doctor's nx check (none where nx is neither configured nor installed). */
export function nxChecks(root: string, env: Env): DoctorCheck[] {
  const configured = present(join(root, 'nx.json'));
  const version = nxVersionAt(root);
  if (version === undefined) {
    if (!configured) return [];
    return [
      {
        check: 'nx',
        level: 'warn',
        detail: 'nx.json is here but no nx is installed (node_modules/nx): lockguard cannot tell which nx runs',
        fix: 'Install the workspace (nx as a root devDependency).',
      },
    ];
  }
  const support = nxSupport(version, env);
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
        detail: `${support.why ?? `nx ${version} cannot be guarded`}: lockguard run moves none of its stale entries, and nx may replay them`,
        fix,
      },
    ];
  }
  if (support.why !== undefined)
    return [
      { check: 'nx', level: 'warn', detail: support.why, fix: `Check it with a guarded run, or pin nx to ${range}.` },
    ];
  const how =
    support.kind === 'task-db'
      ? "its task DB answers hits by itself, so lockguard first marks a withheld entry's row not replayable (through this nx), then moves the entry"
      : "a withheld entry's folder leaving the cache is a miss";
  return [{ check: 'nx', level: 'ok', detail: `nx ${version} is guarded: ${how}` }];
}
