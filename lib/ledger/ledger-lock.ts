// Locks on a part of the ledger (a run's quarantine, finishing a dead run), held by a live process.
//
// Owns: `<root>/.lockguard/live/.lock-<name>` (JSON: pid, pidStart, t, host, boot), taking one (O_EXCL),
// taking over one whose holder is dead (the holder was killed mid-operation: the caller must repair what it
// left), and listing the locks dead holders left behind.
// Invariants:
// - A lock lives in `live/`, so an idle workspace still costs one failed readdir (recovery's fast path).
// - A holder is live only with a start time that matches (live.ts): a reused pid is a dead holder.
// - A holder is dead *on this machine* only when the lock was made here since the last boot (trust.ts
//   madeHere): a lock from another host or boot, or one without those fields (older or forged), is foreign:
//   never taken over, never listed as dead; taking it is ERR_LOCKGUARD_FOREIGN (nothing it names is
//   repaired). A lock with no holder written (killed between its two syscalls) never began its work: it is
//   broken without asking for repair.
// - Breaking a dead holder's lock goes through a second O_EXCL "breaker" file, so two processes that both
//   see the holder dead cannot both take the lock. A lock is released only by the process that holds it.

import {
  closeSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeSync,
  constants,
} from 'node:fs';
import { join } from 'node:path';
import { errnoCode, LockguardError } from '../core/errors.js';
import { fsFault } from '../core/fs-fault.js';
import { ledgerFolder } from './ledger-fs.js';
import { LEDGER, ledgerPath } from './ledger-layout.js';
import { isAlive, processStart } from './live.js';
import { FOREIGN_ADVICE, machineStamp, madeHere } from './trust.js';

export interface LedgerLock {
  readonly path: string;
  /** True when a dead holder's lock was taken over: what it was doing may be half done. */
  readonly tookOver: boolean;
  release(): void;
}

interface Holder {
  readonly pid: number;
  readonly pidStart: number | null;
  readonly t: number;
  /** Made on this host since its last boot. */
  readonly here: boolean;
}

const LOCK_PREFIX = '.lock-';
/** Tries to take a lock: a dead holder's lock is taken over on a later try. */
const LOCK_TRIES = 5;
/** A lock file younger than this with no holder written yet is being written: wait and look again. */
const UNWRITTEN_GRACE_MS = 1000;
const UNWRITTEN_WAIT_MS = 50;
const NAME = /^[\w.-]+$/;

function readHolder(path: string): Holder | undefined | 'gone' {
  let text: string;
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 'gone';
    return undefined;
  }
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid !== 'number' || typeof value.t !== 'number') return undefined;
    return {
      pid: value.pid,
      pidStart: typeof value.pidStart === 'number' ? value.pidStart : null,
      t: value.t,
      here: madeHere(value),
    };
  } catch {
    return undefined;
  }
}

function create(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw fsFault(error, path, 'create the lock');
  }
  let written = false;
  try {
    writeSync(
      fd,
      JSON.stringify({ pid: process.pid, pidStart: processStart(process.pid), t: Date.now(), ...machineStamp() }),
    );
    written = true;
  } catch (error) {
    throw fsFault(error, path, 'write the lock');
  } finally {
    closeSync(fd);
    if (!written) rmSync(path, { force: true });
  }
  return true;
}

function youngerThan(path: string, ms: number): boolean {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats !== undefined && Date.now() - stats.mtimeMs < ms;
}

function mine(path: string): boolean {
  const holder = readHolder(path);
  return typeof holder === 'object' && holder.pid === process.pid && holder.pidStart === processStart(process.pid);
}

/** Remove a dead holder's lock, guarded by a breaker file so only one process breaks it. */
function breakDead(path: string, seen: Holder | undefined): boolean {
  const breaker = `${path}.break`;
  if (!create(breaker)) {
    const other = readHolder(breaker);
    if (typeof other === 'object' && (!other.here || isAlive(other.pid, other.pidStart))) return false;
    // A breaker whose holder died within its few syscalls: remove it and let the caller retry.
    rmSync(breaker, { force: true });
    return false;
  }
  try {
    const now = readHolder(path);
    const same =
      now === 'gone' ||
      (now === undefined ? seen === undefined : seen !== undefined && now.pid === seen.pid && now.t === seen.t);
    if (!same) return false;
    const aside = `${path}.dead.${process.pid}`;
    try {
      renameSync(path, aside);
      rmSync(aside, { force: true });
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw fsFault(error, path, 'remove the stale lock');
    }
    return true;
  } finally {
    rmSync(breaker, { force: true });
  }
}

/**
 * Take the lock `name` of the workspace's ledger. Throws ERR_LOCKGUARD_BUSY when a live process holds it;
 * takes it over (tookOver) when its holder is dead or the lock is garbage.
 */
export function acquireLock(root: string, name: string): LedgerLock {
  if (!NAME.test(name)) throw new Error(`bad lock name ${name}`);
  const live = ledgerFolder(root, [LEDGER.live], true) ?? ledgerPath(root, LEDGER.live);
  const path = join(live, `${LOCK_PREFIX}${name}`);
  let tookOver = false;
  for (let attempt = 0; attempt < LOCK_TRIES; attempt++) {
    if (create(path)) {
      let released = false;
      return {
        path,
        tookOver,
        release() {
          if (released) return;
          released = true;
          if (mine(path)) rmSync(path, { force: true });
          // An idle workspace has no live/ folder (the hooks' fast path is one failed readdir).
          try {
            rmdirSync(live);
          } catch {
            // Not empty (a live run's marker, another lock) or gone: both fine.
          }
        },
      };
    }
    const holder = readHolder(path);
    if (holder === 'gone') continue;
    if (holder === undefined && attempt < LOCK_TRIES - 1 && youngerThan(path, UNWRITTEN_GRACE_MS)) {
      // Created a moment ago and not written yet (its holder is between two syscalls): wait, then look again.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, UNWRITTEN_WAIT_MS);
      continue;
    }
    if (holder !== undefined && !holder.here) throw foreignLock(path);
    if (holder !== undefined && isAlive(holder.pid, holder.pidStart)) {
      throw new LockguardError(
        'ERR_LOCKGUARD_BUSY',
        `Another lockguard process (pid ${holder.pid}) is working on this part of the ledger ("${path}").`,
        {
          path,
          hint: 'Wait for it to finish, then run the command again.',
        },
      );
    }
    // A lock with no holder written never began its work: nothing to repair.
    if (breakDead(path, holder) && holder !== undefined) tookOver = true;
  }
  throw new LockguardError(
    'ERR_LOCKGUARD_BUSY',
    `Could not take the lock "${path}": other lockguard processes keep taking it.`,
    { path, hint: 'Run the command again.' },
  );
}

function foreignLock(path: string): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_FOREIGN',
    `The lock "${path}" was not made on this machine since it last booted (another host, an earlier boot, an older lockguard, or a committed or copied ledger); lockguard neither waits for it nor repairs what it names.`,
    {
      path,
      hint: `${FOREIGN_ADVICE[0]?.toUpperCase() ?? ''}${FOREIGN_ADVICE.slice(1)}; or remove just that lock once you know no lockguard on another machine uses this ledger.`,
    },
  );
}

/** Names of the locks in `live/` whose holders died on this machine (what they were doing needs repair); foreign locks are not listed. */
export function deadLocks(names: readonly string[], live: string): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (!name.startsWith(LOCK_PREFIX) || name.endsWith('.break') || name.includes('.dead.')) continue;
    const holder = readHolder(join(live, name));
    if (holder === 'gone' || (holder !== undefined && !holder.here)) continue;
    if (holder === undefined || !isAlive(holder.pid, holder.pidStart)) out.push(name.slice(LOCK_PREFIX.length));
  }
  return out;
}
