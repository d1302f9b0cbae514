// Pruning the ledger: removing old finished runs, and the lockfile copies only they kept.
//
// Owns: what `lockguard prune` removes and keeps, and removing it so that a kill at any instant loses
// nothing kept and strands nothing. A run leaves the ledger by one rename (`runs/<id>` to
// `runs/.pruned-<id>`: no command lists or finds a name that is not a run id), then is deleted; a blob
// is renamed aside the same way, put back if a run that started meanwhile names it, then deleted. The next
// prune finishes whatever a killed one left aside.
// Invariants:
// - Never removed: the newest `keep` runs; the newest run of each kind (verify and status find it); a run
//   with a live marker (live, or dead and not yet finished) or whose recording process still runs here (a
//   run between its record and its marker); a run with a quarantine folder (its withheld
//   entries, and the guard.json a restore checks, stay together); a run whose record cannot be read (it
//   is reported, never judged), except a folder with no record at all whose id is over an hour old (a
//   creation killed before its record: no command ever saw it as a run).
// - Read in this order: markers, then quarantine folders, then runs: a run that finishes meanwhile still
//   shows a marker or (after its withholding pass) a quarantine folder.
// - A blob is deleted only when no run left in the ledger names it, every such run's record was read, and
//   no run created during the prune names it either (they are listed again after the blobs are set aside).
// - Touches nothing outside `.lockguard/runs` and `.lockguard/blobs`; never follows a link (ledger-fs.ts;
//   set-aside.ts deletes a link as a link);
//   holds the ledger lock `prune`, so two prunes never interleave.

import { lstatSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { isLockguardError } from '../core/errors.js';
import { fsFault } from '../core/fs-fault.js';
import { acquireLock } from './ledger-lock.js';
import { ledgerFolder, listFolder, listLedgerFolder } from './ledger-fs.js';
import { LEDGER, PRUNED_PREFIX, RUN_FILES } from './ledger-layout.js';
import { loadRun, runDir, runIdTime } from './ledger.js';
import { isAlive, listMarkers } from './live.js';
import { RUN_ID, type RunRecord } from './run-record.js';
import { finishSetAside, removeTree, setAsideAndDelete } from './set-aside.js';
import { thisMachine } from './trust.js';

/** How many of the newest runs `lockguard prune` keeps unless told otherwise. */
export const DEFAULT_KEEP = 50;
/** A run folder with no record this much older than the prune is a creation that was killed. */
const STRANDED_AFTER_MS = 60 * 60 * 1000;
/** How long to wait for the record of a run created during the prune before keeping every blob. */
const RECORD_WAIT_MS = 1000;
const DIGEST = /^[0-9a-f]{64}$/;

export interface PruneOptions {
  /** How many of the newest runs to keep, whatever else is kept. */
  readonly keep: number;
  /** Decide and measure only. */
  readonly dryRun?: boolean;
  /** Runs to keep (LOCKGUARD_RUN, LOCKGUARD_RUN_<NAME>: ids or run folders). */
  readonly named?: string | readonly string[];
  /** The clock, for tests of the stranded-folder rule. */
  readonly now?: number;
  /** Called once the unnamed blobs are set aside, before runs are listed again: tests start a run here. */
  readonly afterSetAside?: () => void;
}

type KeptReason = 'newest' | 'newest-of-kind' | 'live' | 'quarantine' | 'named' | 'unreadable';

export interface PruneResult {
  readonly dryRun: boolean;
  /** Removed (or, on a dry run, to be removed), newest first, with the bytes each held. */
  readonly removed: readonly { readonly id: string; readonly bytes: number; readonly stranded: boolean }[];
  /** Every kept run and the first reason it was kept. */
  readonly kept: readonly { readonly id: string; readonly reason: KeptReason; readonly problem?: string }[];
  readonly blobs: { readonly removed: number; readonly bytes: number; readonly kept: number; readonly why?: string };
  /** What a killed prune had set aside, finished now. */
  readonly finished: number;
}

interface Candidate {
  readonly id: string;
  readonly record: RunRecord | undefined;
  readonly problem: string | undefined;
}

export function pruneLedger(root: string, options: PruneOptions): PruneResult {
  const runs = ledgerFolder(root, [LEDGER.runs], false);
  if (runs === undefined)
    return {
      dryRun: options.dryRun === true,
      removed: [],
      kept: [],
      blobs: { removed: 0, bytes: 0, kept: 0 },
      finished: 0,
    };
  const lock = options.dryRun === true ? undefined : acquireLock(root, 'prune');
  try {
    return prune(root, runs, options);
  } finally {
    lock?.release();
  }
}

function prune(root: string, runs: string, options: PruneOptions): PruneResult {
  const dryRun = options.dryRun === true;
  // Checked before anything is removed: a link where `blobs` belongs stops the prune with nothing done.
  const blobFolder = ledgerFolder(root, [LEDGER.blobs], false);
  const now = options.now ?? Date.now();
  const live = new Set(listMarkers(root).map((marker) => marker.name));
  const quarantined = new Set(listLedgerFolder(root, LEDGER.quarantine));
  const listed = listFolder(runs);
  const finished = dryRun ? 0 : finishSetAside(runs, PRUNED_PREFIX);
  const ids = listed
    .filter((name) => RUN_ID.test(name))
    .sort()
    .reverse();
  const candidates: Candidate[] = ids.map((id) => read(root, id));
  const named = new Set(
    (typeof options.named === 'string' ? [options.named] : (options.named ?? [])).map((given) =>
      given
        .split(/[\\/]/)
        .filter((part) => part !== '')
        .at(-1),
    ),
  );
  const newestOfKind = new Set<string>();
  for (const kind of ['snapshot', 'run']) {
    const newest = ids.find((id) => id.includes(`-${kind}-`));
    if (newest !== undefined) newestOfKind.add(newest);
  }
  const kept: { id: string; reason: KeptReason; problem?: string }[] = [];
  const removed: { id: string; bytes: number; stranded: boolean }[] = [];
  candidates.forEach((candidate, index) => {
    const { id } = candidate;
    const stranded =
      candidate.record === undefined && candidate.problem === undefined && now - runIdTime(id) > STRANDED_AFTER_MS;
    const reason = keptFor(candidate, stranded, {
      newest: index < options.keep,
      newestOfKind: newestOfKind.has(id),
      live: live.has(id),
      quarantined: quarantined.has(id),
      named: named.has(id),
    });
    if (reason !== undefined) {
      kept.push({ id, reason, ...(candidate.problem === undefined ? {} : { problem: candidate.problem }) });
      return;
    }
    removed.push({ id, bytes: folderBytes(join(runs, id)), stranded });
  });
  if (!dryRun) for (const run of removed) setAsideAndDelete(runs, run.id, PRUNED_PREFIX);
  const blobs = pruneBlobs(
    root,
    runs,
    blobFolder,
    new Set(ids),
    candidates,
    new Set(removed.map((run) => run.id)),
    options,
  );
  return { dryRun, removed, kept, blobs, finished };
}

/** The first reason a run is kept, or undefined when it goes. */
function keptFor(
  candidate: Candidate,
  stranded: boolean,
  is: { newest: boolean; newestOfKind: boolean; live: boolean; quarantined: boolean; named: boolean },
): KeptReason | undefined {
  if (is.newest) return 'newest';
  if (is.newestOfKind) return 'newest-of-kind';
  if (is.live || runsHere(candidate.record)) return 'live';
  if (is.quarantined) return 'quarantine';
  if (is.named) return 'named';
  if (candidate.record === undefined && !stranded) return 'unreadable';
  return undefined;
}

/**
 * Whether the process that wrote the record still runs on this host: a run between its record and its live
 * marker (it is starting), or one still finishing, is not removed under it.
 */
function runsHere(record: RunRecord | undefined): boolean {
  return record !== undefined && record.host === thisMachine().host && isAlive(record.pid, record.pidStart);
}

function read(root: string, id: string): Candidate {
  const folder = lstatSync(runDir(root, id), { throwIfNoEntry: false });
  if (folder === undefined || !folder.isDirectory())
    return {
      id,
      record: undefined,
      problem: `"${runDir(root, id)}" is not a folder (a link or a file where a run belongs)`,
    };
  // No record yet: a run being created, or one whose creation was killed.
  if (lstatSync(join(runDir(root, id), RUN_FILES.record), { throwIfNoEntry: false }) === undefined)
    return { id, record: undefined, problem: undefined };
  try {
    return { id, record: loadRun(runDir(root, id), root).record, problem: undefined };
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return { id, record: undefined, problem: error.message };
  }
}

/**
 * Blobs no run left in the ledger names. Set aside first; then the runs created since the first listing
 * are read (waiting briefly for a record being written) and whatever they name is put back; the rest is
 * deleted. A run created after that second listing finds its blob missing and writes it again.
 */
function pruneBlobs(
  root: string,
  runs: string,
  folder: string | undefined,
  listed: ReadonlySet<string>,
  candidates: readonly Candidate[],
  removed: ReadonlySet<string>,
  options: PruneOptions,
): PruneResult['blobs'] {
  if (folder === undefined) return { removed: 0, bytes: 0, kept: 0 };
  const all = listFolder(folder);
  const present = all.filter((name) => DIGEST.test(name));
  const unread = candidates.find((candidate) => !removed.has(candidate.id) && candidate.record === undefined);
  const named = new Set<string>();
  for (const candidate of candidates)
    if (!removed.has(candidate.id)) for (const digest of digestsOf(candidate.record)) named.add(digest);
  // A blob a killed prune set aside is deleted, or put back when a run names it and its name is free.
  const aside = all.filter((name) => name.startsWith(PRUNED_PREFIX) && DIGEST.test(name.slice(PRUNED_PREFIX.length)));
  const dryRun = options.dryRun === true;
  // Putting one back is always safe; deleting one needs every record read.
  for (const name of aside) {
    const digest = name.slice(PRUNED_PREFIX.length);
    if (dryRun) continue;
    if (named.has(digest) && !present.includes(digest)) putBack(folder, digest);
    else if (unread === undefined) removeTree(join(folder, name));
  }
  if (unread !== undefined) {
    return {
      removed: 0,
      bytes: 0,
      kept: present.length,
      why: `the record of run ${unread.id} cannot be read, so which lockfile copies it needs is unknown`,
    };
  }
  const unnamed = present.filter((digest) => !named.has(digest));
  const bytes = unnamed.reduce((sum, digest) => sum + fileBytes(join(folder, digest)), 0);
  if (dryRun) return { removed: unnamed.length, bytes, kept: present.length - unnamed.length };
  for (const digest of unnamed) setAside(folder, digest);
  options.afterSetAside?.();
  const since = newRunsNamed(root, runs, listed);
  let deleted = 0;
  let deletedBytes = 0;
  for (const digest of unnamed) {
    if (since === 'unknown' || since.has(digest)) {
      putBack(folder, digest);
      continue;
    }
    const size = fileBytes(join(folder, `${PRUNED_PREFIX}${digest}`));
    removeTree(join(folder, `${PRUNED_PREFIX}${digest}`));
    deleted++;
    deletedBytes += size;
  }
  return { removed: deleted, bytes: deletedBytes, kept: present.length - deleted };
}

/** The digests the runs created since `listed` name, or `unknown` when one's record did not appear in time. */
function newRunsNamed(root: string, runs: string, listed: ReadonlySet<string>): Set<string> | 'unknown' {
  const named = new Set<string>();
  for (const id of listFolder(runs)) {
    if (!RUN_ID.test(id) || listed.has(id)) continue;
    const deadline = Date.now() + RECORD_WAIT_MS;
    let candidate = read(root, id);
    while (candidate.record === undefined && candidate.problem === undefined && Date.now() < deadline) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      candidate = read(root, id);
    }
    if (candidate.record === undefined) return 'unknown';
    for (const digest of digestsOf(candidate.record)) named.add(digest);
  }
  return named;
}

function digestsOf(record: RunRecord | undefined): string[] {
  return (record?.entries ?? []).flatMap((entry) =>
    entry.kind === 'lockfile' && entry.digest !== null ? [entry.digest] : [],
  );
}

function setAside(folder: string, digest: string): void {
  try {
    renameSync(join(folder, digest), join(folder, `${PRUNED_PREFIX}${digest}`));
  } catch (error) {
    throw fsFault(error, join(folder, digest), 'move aside');
  }
}

function putBack(folder: string, digest: string): void {
  try {
    renameSync(join(folder, `${PRUNED_PREFIX}${digest}`), join(folder, digest));
  } catch (error) {
    throw fsFault(error, join(folder, `${PRUNED_PREFIX}${digest}`), 'put back');
  }
}

/** The bytes of the files directly in a run folder (run folders are flat; a link counts as itself). */
function folderBytes(folder: string): number {
  return listFolder(folder).reduce((sum, name) => sum + fileBytes(join(folder, name)), 0);
}

function fileBytes(path: string): number {
  return lstatSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
