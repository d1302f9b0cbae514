// What a runner's own plan showed about its cached tasks and their slice files: per task (`TaskFold`), and
// as one doctor finding.
//
// Owns: `TaskFold` (one cached task: its project's slice file and whether its key folds it), `findingsOf`
// (those that leave the file out; those that fold it but whose project has none written yet), `soundCheckOf`
// (ok / warn / fail with the fix), and `keysWouldChange` (the tasks whose folded file holds other bytes than
// the slice writer would write), shared by the turbo and nx proofs and by `plan`.
// Invariants: a task that leaves its file out is always named (at most five, then how many more); reads
// only the slice files themselves.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SLICE_FILE, type SoundCheck, soundKeysFix, type SoundKeysMode } from './types.js';
import { readConfigText } from '../../core/bounded-read.js';

/** One cached task, as its runner's own plan shows it. */
export interface TaskFold {
  readonly id: string;
  /** Its project's slice file, workspace-relative. */
  readonly file: string;
  /** Whether the task's key takes the file in (once it is written). */
  readonly folds: boolean;
}

export interface Findings {
  readonly cached: number;
  readonly missing: readonly string[];
  readonly unwritten: readonly string[];
  /** How many projects those tasks belong to (their distinct slice files): tasks are not projects. */
  readonly unwrittenProjects?: number;
}

/** The findings of a runner's cached tasks at `root` (which files exist is read here). */
export function findingsOf(folds: readonly TaskFold[], root: string): Findings {
  return {
    cached: folds.length,
    missing: folds.filter((task) => !task.folds).map((task) => task.id),
    unwritten: folds.filter((task) => task.folds && !existsSync(join(root, task.file))).map((task) => task.id),
    unwrittenProjects: new Set(
      folds.filter((task) => task.folds && !existsSync(join(root, task.file))).map((task) => task.file),
    ).size,
  };
}

/**
 * The tasks whose keys would change: they fold a slice file whose bytes differ from what the slice writer
 * would write now (`expected`: workspace-relative file → text; a file it does not name is not judged).
 */
export function keysWouldChange(
  folds: readonly TaskFold[],
  root: string,
  expected: ReadonlyMap<string, string>,
): string[] {
  const now = new Map<string, string | undefined>();
  const read = (file: string): string | undefined => {
    if (!now.has(file)) {
      now.set(file, readConfigText(join(root, file), root));
    }
    return now.get(file);
  };
  return folds
    .filter((task) => task.folds && expected.has(task.file) && read(task.file) !== expected.get(task.file))
    .map((task) => task.id);
}

/** Names, at most a few, then how many more. */
export function someOf(names: readonly string[], limit = 5): string {
  return `${names.slice(0, limit).join(', ')}${names.length > limit ? ` (+${names.length - limit} more)` : ''}`;
}

/** `3 projects have` / `1 project has`: the projects, counted by their slice files, never by tasks. */
function projectsWithout(found: Findings): string {
  const count = found.unwrittenProjects ?? found.unwritten.length;
  return count === 1 ? '1 project has' : `${count} projects have`;
}

/** One finding from what a runner's plan showed; `mode`: the workspace's (the fix sets that one up). */
export function soundCheckOf(
  runner: Exclude<SoundCheck['runner'], 'git'>,
  found: Findings,
  mode?: SoundKeysMode,
): SoundCheck {
  const folded = found.cached - found.missing.length - found.unwritten.length;
  if (found.missing.length > 0) {
    return {
      runner,
      // Nothing folds the file yet: sound keys are not set up (a warning); some do, some do not: a hole (a failure).
      level: folded + found.unwritten.length === 0 ? 'warn' : 'fail',
      detail: `${found.missing.length} of ${found.cached} cached ${runner} tasks do not fold their project's ${SLICE_FILE}, so a lockfile change ${runner} misses can replay their outputs: ${someOf(found.missing)}`,
      fix: soundKeysFix(mode),
    };
  }
  if (found.unwritten.length > 0) {
    return {
      runner,
      level: 'warn',
      detail: `every cached ${runner} task names its ${SLICE_FILE}, but ${projectsWithout(found)} none written yet (${found.unwritten.length === 1 ? 'its task' : `their ${found.unwritten.length} tasks`}: ${someOf(found.unwritten)})`,
      fix: 'lockguard key --write-slices (lockguard run and the install hooks write them too).',
    };
  }
  return {
    runner,
    level: 'ok',
    detail: `all ${found.cached} cached ${runner} tasks fold their project's ${SLICE_FILE} (${runner}'s own plan says so)`,
  };
}
