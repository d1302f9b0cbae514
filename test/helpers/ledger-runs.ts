// Many runs in a ledger, fast: folders cloned from one real run of the workspace, each with its own id.
//
// Owns: `cloneRuns` (for prune's tests and bench, and doctor's) and `exited`. Invariant: every clone is a run any command
// reads as real (its record names its own id); ids sort by the time they spell, one second apart, oldest
// first, ending a second before now.

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { createRun, runIdAt } from '../../lib/ledger/ledger.js';

/**
 * Make a run's record say its process has exited (no start time: never taken for live), as a run written
 * by a `lockguard` process that ended reads; a record written in the test's own process names a live pid.
 */
export function exited(dir: string): void {
  const path = join(dir, 'run.json');
  writeFileSync(
    path,
    `${JSON.stringify({ ...(JSON.parse(readFileSync(path, 'utf8')) as object), pidStart: null }, null, 2)}\n`,
  );
}

/** `count` guarded-run folders in `root`'s ledger, written by an exited process; returns their ids, oldest first. */
export function cloneRuns(root: string, count: number): string[] {
  const template = createRun({ kind: 'run', table: readWorkspaceFingerprints(root) });
  exited(template.dir);
  const files = readdirSync(template.dir).map(
    (name) => [name, readFileSync(join(template.dir, name), 'utf8')] as const,
  );
  const base = Date.now() - (count + 1) * 1000;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = runIdAt('run', (base + i * 1000) * 1000, i.toString(16).padStart(6, '0'));
    const dir = join(root, '.lockguard', 'runs', id);
    mkdirSync(dir);
    for (const [name, text] of files) writeFileSync(join(dir, name), text.replaceAll(template.record.id, id));
    ids.push(id);
  }
  rmSync(template.dir, { recursive: true });
  return ids;
}
