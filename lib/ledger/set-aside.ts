// Taking something out of the ledger for good: one rename aside, then deletion (prune.ts, quarantine/drop.ts).
//
// Owns: the set-aside protocol. A folder or file leaves the ledger by one rename to `<prefix><name>` in its
// own folder (a name no command lists: run ids and digests never start with a dot), and only then is it
// deleted; `finishSetAside` deletes what a killed process had set aside. Also the deletion helpers those
// two share (the listing is ledger-fs.ts `listFolder`).
// Invariants: the rename is the commit point: before it the thing is whole and listed, after it no command
// sees it; deletion never follows a link (links inside are removed as links); every fault is a
// LockguardError naming the path.

import { lstatSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode } from '../core/errors.js';
import { fsFault } from '../core/fs-fault.js';
import { listFolder } from './ledger-fs.js';

/** Rename `folder/name` to `folder/<prefix><name>`, then delete it. False when it was already gone. */
export function setAsideAndDelete(folder: string, name: string, prefix: string): boolean {
  const from = join(folder, name);
  const aside = join(folder, `${prefix}${name}`);
  try {
    renameSync(from, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw fsFault(error, from, 'move aside');
  }
  removeTree(aside);
  return true;
}

/** Delete every `<prefix>…` in `folder` (what a killed process set aside); returns how many. */
export function finishSetAside(folder: string | undefined, prefix: string): number {
  let count = 0;
  for (const name of listFolder(folder)) {
    if (!name.startsWith(prefix)) continue;
    removeTree(join(folder ?? '', name));
    count++;
  }
  return count;
}

/**
 * Delete a file or a folder, links inside removed as links. A flat folder (a run's) costs one unlink per
 * file and one rmdir: half the syscalls of a recursive rm, which tries the folder first.
 */
export function removeTree(path: string): void {
  try {
    // lstat, never readdir first: a link to a folder elsewhere is removed as a link, its target untouched.
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return;
    if (!stats.isDirectory()) {
      unlinkSync(path);
      return;
    }
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const inner = join(path, entry.name);
      if (entry.isDirectory()) rmSync(inner, { recursive: true, force: true });
      else unlinkSync(inner);
    }
    rmdirSync(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw fsFault(error, path, 'delete');
  }
}
