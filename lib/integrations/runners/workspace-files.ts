// Small reads of a workspace's own files that runner detection shares.
//
// Owns: `present(path)` (an lstat: anything there, a link included, counts).
// Invariants: never throws; never follows a link; reads nothing but the stat.

import { lstatSync } from 'node:fs';

/** Whether anything is at `path` (an unreadable parent counts as absent). */
export function present(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
