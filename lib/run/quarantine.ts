// Quarantine: where withheld cache entries go, and how they come back.
//
// Owns: `<root>/.lockguard/quarantine/<run id>/` (a `manifest.json` plus `entries/<runner>/<key>/<the
// entry's paths relative to its cache dir>`), putting a unit in (all of its paths or none), the manifest,
// and listing. Restoring lives in quarantine-restore.ts.
// Invariants:
// - Never deletes: quarantine is a rename (copy + verify + remove only across file systems).
// - Only paths inside the cache dir named in the unit move, and only when no parent on the way is a
//   symlink and the path itself is not one (a link is never followed, never moved).
// - A restore never overwrites: a unit any of whose paths exists in the cache again is skipped.
// - The manifest is written atomically; a unit is listed only after all of its paths moved.

import { lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, LockguardError } from '../core/errors.js';
import { writeAtomic } from './atomic.js';
import { ensureLedger, LEDGER_DIR } from './ledger.js';
import { crossedLink, isSafeRelative, moveTree, recordTree, type RenameFn, type TreeFile } from './quarantine-move.js';

/** One cache entry to withhold: every path of it moves, or none does. */
export interface QuarantineUnit {
  readonly runner: string;
  /** The runner's key (hash) for the entry; names its folder in quarantine. */
  readonly key: string;
  readonly cacheDir: string;
  /** Paths relative to `cacheDir` that make up the entry. */
  readonly paths: readonly string[];
  /** Why it is withheld, one short line for the report. */
  readonly reason: string;
  readonly task?: string;
}

export interface QuarantinedEntry {
  readonly runner: string;
  readonly key: string;
  readonly task?: string;
  readonly cacheDir: string;
  /** The paths that moved, relative to `cacheDir` (POSIX). */
  readonly paths: readonly string[];
  /** Every file below them as recorded before the move. */
  readonly files: readonly TreeFile[];
  readonly size: number;
  readonly reason: string;
  readonly withheldAt: string;
  readonly restoredAt?: string;
}

export interface QuarantineManifest {
  readonly version: 1;
  readonly run: string;
  readonly root: string;
  readonly entries: readonly QuarantinedEntry[];
}

export interface NotMoved {
  readonly key: string;
  readonly reason: 'symlink' | 'outside-cache-dir' | 'missing' | 'error';
  readonly detail: string;
}

export interface QuarantineResult {
  readonly dir: string;
  readonly moved: readonly QuarantinedEntry[];
  readonly notMoved: readonly NotMoved[];
}

const RUN_ID = /^[\w.-]+$/;

export function quarantineRoot(root: string): string {
  return join(root, LEDGER_DIR, 'quarantine');
}

export function quarantineDir(root: string, runId: string): string {
  if (!RUN_ID.test(runId)) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `"${runId}" is not a lockguard run id.`, { hint: 'lockguard quarantine list shows the run ids.' });
  }
  return join(quarantineRoot(root), runId);
}

/** An entry's folder inside its run's quarantine folder. */
export function entryHome(runner: string, key: string): string {
  return join('entries', runner, key);
}

/** Move every unit into `<root>/.lockguard/quarantine/<runId>/`; units that cannot move are reported, never half-moved. */
export function quarantine(root: string, runId: string, units: readonly QuarantineUnit[], options: { rename?: RenameFn; now?: () => Date } = {}): QuarantineResult {
  const dir = quarantineDir(root, runId);
  const moved: QuarantinedEntry[] = [];
  const notMoved: NotMoved[] = [];
  if (units.length === 0) return { dir, moved, notMoved };
  ensureLedger(root);
  mkdirSync(dir, { recursive: true });
  const previous = readManifestIfAny(dir);
  for (const unit of units) {
    const problem = checkUnit(unit);
    if (problem !== undefined) {
      notMoved.push(problem);
      continue;
    }
    const present = unit.paths.filter((path) => lstatSync(join(unit.cacheDir, path), { throwIfNoEntry: false }) !== undefined);
    if (present.length === 0) {
      notMoved.push({ key: unit.key, reason: 'missing', detail: 'the entry is gone from the cache' });
      continue;
    }
    const home = entryHome(unit.runner, unit.key);
    const done: string[] = [];
    try {
      const files = present.flatMap((path) => recordTree(unit.cacheDir, path));
      for (const path of present) {
        moveTree(unit.cacheDir, path, join(dir, home), path, files.filter((file) => file.path === path || file.path.startsWith(`${path}/`)), options.rename);
        done.push(path);
      }
      const size = files.reduce((sum, file) => sum + file.size, 0);
      moved.push({
        runner: unit.runner,
        key: unit.key,
        ...(unit.task === undefined ? {} : { task: unit.task }),
        cacheDir: unit.cacheDir,
        paths: present,
        files,
        size,
        reason: unit.reason,
        withheldAt: (options.now?.() ?? new Date()).toISOString(),
      });
    } catch (error) {
      // Put back what already moved, so the unit stays whole in the cache.
      for (const path of done.reverse()) {
        try {
          moveTree(join(dir, home), path, unit.cacheDir, path, recordTree(join(dir, home), path), options.rename);
        } catch {
          // It stays in quarantine; the manifest below still lists nothing for it, the files are there.
        }
      }
      notMoved.push({ key: unit.key, reason: 'error', detail: error instanceof Error ? error.message : String(error) });
    }
  }
  const manifest: QuarantineManifest = { version: 1, run: runId, root, entries: [...(previous?.entries ?? []), ...moved] };
  writeAtomic(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir, moved, notMoved };
}

function checkUnit(unit: QuarantineUnit): NotMoved | undefined {
  if (!/^[\w.-]+$/.test(unit.key) || !/^[\w.-]+$/.test(unit.runner)) return { key: unit.key, reason: 'outside-cache-dir', detail: 'the key is not a plain name' };
  for (const path of unit.paths) {
    if (!isSafeRelative(path)) return { key: unit.key, reason: 'outside-cache-dir', detail: `"${path}" is not inside the cache dir` };
    const link = crossedLink(unit.cacheDir, path);
    if (link !== undefined) return { key: unit.key, reason: 'symlink', detail: `"${link}" is a symlink or not a folder; not followed` };
    const stats = lstatSync(join(unit.cacheDir, path), { throwIfNoEntry: false });
    if (stats?.isSymbolicLink() === true) return { key: unit.key, reason: 'symlink', detail: `"${join(unit.cacheDir, path)}" is a symlink; never followed, never moved` };
  }
  return undefined;
}

function readManifestIfAny(dir: string): QuarantineManifest | undefined {
  const path = join(dir, 'manifest.json');
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  return readManifest(path);
}

function brokenManifest(path: string, problem: string, cause?: unknown): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LEDGER', `The quarantine manifest "${path}" ${problem}.`, {
    path,
    cause,
    hint: 'The withheld files are still in that folder, under entries/<runner>/<key>/ with their cache-relative paths; move them back by hand if needed.',
  });
}

export function readManifest(path: string): QuarantineManifest {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw brokenManifest(path, errnoCode(error) === undefined ? 'is not valid JSON' : 'cannot be read', error);
  }
  const manifest = value as Partial<QuarantineManifest> | null;
  const ok =
    manifest !== null &&
    typeof manifest === 'object' &&
    manifest.version === 1 &&
    typeof manifest.run === 'string' &&
    Array.isArray(manifest.entries) &&
    manifest.entries.every(
      (entry) =>
        typeof entry?.key === 'string' &&
        typeof entry.runner === 'string' &&
        typeof entry.cacheDir === 'string' &&
        Array.isArray(entry.paths) &&
        (entry.paths as unknown[]).every((p: unknown) => typeof p === 'string' && isSafeRelative(p)) &&
        Array.isArray(entry.files),
    );
  if (!ok) throw brokenManifest(path, 'is missing fields or has fields of the wrong type');
  return manifest as QuarantineManifest;
}

export interface QuarantineListing {
  readonly run: string;
  readonly dir: string;
  readonly manifest?: QuarantineManifest;
  /** Set when the manifest could not be read: the message, the files stay. */
  readonly problem?: string;
}

/** Every quarantine folder of the workspace, newest run id first. A broken manifest is listed with its problem. */
export function listQuarantine(root: string): QuarantineListing[] {
  let names: string[];
  try {
    names = readdirSync(quarantineRoot(root));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw new LockguardError('ERR_LOCKGUARD_IO', `Cannot list "${quarantineRoot(root)}" (${errnoCode(error) ?? 'unknown error'}).`, { path: quarantineRoot(root), cause: error });
  }
  const out: QuarantineListing[] = [];
  for (const run of names.filter((name) => RUN_ID.test(name)).sort().reverse()) {
    const dir = join(quarantineRoot(root), run);
    try {
      out.push({ run, dir, manifest: readManifest(join(dir, 'manifest.json')) });
    } catch (error) {
      out.push({ run, dir, problem: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}
