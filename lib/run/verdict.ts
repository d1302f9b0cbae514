// The save gate across processes: has anything in a recorded run's table moved?
//
// Owns: judging a ledger run (snapshot or guarded run) against the files now, and recording the verdict.
// Invariants: the verdict comes from the table re-checked through FingerprintWatch, never from a hook or
// a cache; once a run recorded a move it stays moved even if the bytes come back.

import { join } from 'node:path';
import type { FileDigest } from '../core/digest.js';
import { fileDigest } from '../core/digest.js';
import { normalizeBytes } from '../core/entries.js';
import { readEntry, realFileSystem, type FileSystem } from '../core/file-probe.js';
import type { WorkspaceFingerprints } from '../core/fingerprints.js';
import { FingerprintWatch, type Move, type MoveKind } from '../core/watch.js';
import { appendEvent, readEvents, type RunHandle, type RunRecord } from './ledger.js';

export interface MovedFile {
  readonly path: string;
  readonly kind: MoveKind;
  readonly was: FileDigest | null;
  /** Digest now, null when absent. */
  readonly now: FileDigest | null;
}

export interface Verdict {
  readonly run: string;
  readonly scope: RunRecord['scope'];
  readonly key: RunRecord['key'];
  /** True when the save may happen: nothing the run's keys folded has moved. */
  readonly save: boolean;
  readonly moved: readonly MovedFile[];
}

/** A table as the ledger recorded it: no kept bytes, so racy re-reads compare digests. */
export function tableOf(record: RunRecord): WorkspaceFingerprints {
  return {
    root: record.root,
    manager: record.manager,
    scope: record.scope,
    at: record.at,
    entries: record.entries,
    files: new Map(),
    key: record.key,
  };
}

/** The digest an entry's file has now (null when absent); for reports only. */
export function currentDigest(root: string, move: Pick<Move, 'path'>, record: RunRecord, fs: FileSystem = realFileSystem): FileDigest | null {
  const entry = record.entries.find((candidate) => candidate.path === move.path);
  const result = readEntry(fs, join(root, move.path), true);
  if (result.state === 'absent') return null;
  const bytes = entry?.normalize === undefined ? result.bytes : normalizeBytes(entry.normalize, result.bytes);
  return fileDigest(bytes);
}

/** Moves recorded by earlier checks of this run (they stay moves). */
export function recordedMoves(dir: string): MovedFile[] {
  const moves = new Map<string, MovedFile>();
  for (const event of readEvents(dir)) {
    if (event.type !== 'moved' || !Array.isArray(event['files'])) continue;
    for (const file of event['files'] as MovedFile[]) if (typeof file?.path === 'string' && !moves.has(file.path)) moves.set(file.path, file);
  }
  return [...moves.values()];
}

/** Re-check a recorded run's table now, record the verdict in its events, and return it. */
export function verifyRun(run: RunHandle, options: { fs?: FileSystem } = {}): Verdict {
  const { record } = run;
  const watch = new FingerprintWatch(record.root, tableOf(record), record.at, options.fs === undefined ? {} : { fs: options.fs });
  watch.wrote();
  watch.moved();
  const earlier = recordedMoves(run.dir);
  const fresh = watch
    .moves()
    .filter((move) => !earlier.some((file) => file.path === move.path))
    .map((move) => ({ path: move.path, kind: move.kind, was: move.was, now: currentDigest(record.root, move, record, options.fs) }));
  if (fresh.length > 0) appendEvent(run, { type: 'moved', evidence: 'verify', files: fresh });
  const moved = [...earlier, ...fresh];
  const verdict: Verdict = { run: record.id, scope: record.scope, key: record.key, save: moved.length === 0, moved };
  appendEvent(run, { type: 'verify', save: verdict.save, moved: moved.map((file) => file.path) });
  return verdict;
}
