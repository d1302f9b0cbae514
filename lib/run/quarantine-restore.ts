// Restoring quarantined cache entries: exactly, and never over something the cache holds again.
//
// Owns: `restore` (checks the manifest's sha256 of every file before moving anything back, skips an entry
// any of whose paths exists in the cache, records `restoredAt` atomically).
// Invariants: never overwrites, never deletes; an entry that changed in quarantine stays there.

import { lstatSync, mkdirSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errnoCode, LockguardError } from '../core/errors.js';
import { writeAtomic } from './atomic.js';
import { entryHome, quarantineDir, quarantineRoot, readManifest, type QuarantinedEntry, type QuarantineManifest } from './quarantine.js';
import { crossedLink, moveTree, recordTree, treeDifferences, type RenameFn, type TreeFile } from './quarantine-move.js';

export interface RestoreResult {
  readonly restored: readonly QuarantinedEntry[];
  readonly skipped: readonly { readonly entry: QuarantinedEntry; readonly reason: 'already-in-cache' | 'already-restored' | 'changed-in-quarantine' | 'symlink-in-the-way' | 'error'; readonly detail: string }[];
}

/** Put a run's quarantined entries (or the one whose key is `entry`) back where they were, never overwriting. */
export function restore(root: string, runId: string, options: { entry?: string; rename?: RenameFn; now?: () => Date } = {}): RestoreResult {
  const dir = quarantineDir(root, runId);
  const path = join(dir, 'manifest.json');
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) {
    throw new LockguardError('ERR_LOCKGUARD_BAD_RUN', `No quarantine for the run "${runId}" in "${quarantineRoot(root)}".`, {
      path: dir,
      hint: 'lockguard quarantine list shows the runs that withheld entries.',
    });
  }
  const manifest = readManifest(path);
  const chosen = manifest.entries.filter((entry) => options.entry === undefined || entry.key === options.entry || `${entry.runner}:${entry.key}` === options.entry);
  if (options.entry !== undefined && chosen.length === 0) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `The run "${runId}" withheld no entry "${options.entry}".`, {
      path: dir,
      hint: `lockguard quarantine list --run ${runId} shows its entries.`,
    });
  }
  const restored: QuarantinedEntry[] = [];
  const skipped: RestoreResult['skipped'][number][] = [];
  const updated = new Map<QuarantinedEntry, QuarantinedEntry>();
  for (const entry of chosen) {
    if (entry.restoredAt !== undefined) {
      skipped.push({ entry, reason: 'already-restored', detail: `restored at ${entry.restoredAt}` });
      continue;
    }
    const home = join(dir, entryHome(entry.runner, entry.key));
    const inCache = entry.paths.find((p) => lstatSync(join(entry.cacheDir, p), { throwIfNoEntry: false }) !== undefined);
    if (inCache !== undefined) {
      skipped.push({ entry, reason: 'already-in-cache', detail: `"${join(entry.cacheDir, inCache)}" exists; not overwritten` });
      continue;
    }
    const link = entry.paths.map((p) => crossedLink(entry.cacheDir, p)).find((found) => found !== undefined);
    if (link !== undefined) {
      skipped.push({ entry, reason: 'symlink-in-the-way', detail: `"${link}" is a symlink or not a folder; not followed` });
      continue;
    }
    let now: TreeFile[];
    try {
      now = entry.paths.flatMap((p) => recordTree(home, p));
    } catch (error) {
      skipped.push({ entry, reason: 'changed-in-quarantine', detail: `cannot read it in quarantine (${errnoCode(error) ?? 'error'})` });
      continue;
    }
    const problems = treeDifferences(entry.files, now);
    if (problems.length > 0) {
      skipped.push({ entry, reason: 'changed-in-quarantine', detail: problems.slice(0, 3).join('; ') });
      continue;
    }
    try {
      mkdirSync(entry.cacheDir, { recursive: true });
      for (const p of entry.paths) moveTree(home, p, entry.cacheDir, p, entry.files.filter((file) => file.path === p || file.path.startsWith(`${p}/`)), options.rename);
      for (const p of entry.paths) pruneEmpty(dirname(join(home, p)), dir);
      const done = { ...entry, restoredAt: (options.now?.() ?? new Date()).toISOString() };
      updated.set(entry, done);
      restored.push(done);
    } catch (error) {
      skipped.push({ entry, reason: 'error', detail: error instanceof Error ? error.message : String(error) });
    }
  }
  if (updated.size > 0) {
    const next: QuarantineManifest = { ...manifest, entries: manifest.entries.map((entry) => updated.get(entry) ?? entry) };
    writeAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
  }
  return { restored, skipped };
}

/** Remove now-empty folders from `from` up to (not including) `stop`; never removes anything non-empty. */
function pruneEmpty(from: string, stop: string): void {
  for (let dir = from; dir.startsWith(stop) && dir !== stop; dir = join(dir, '..')) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}
