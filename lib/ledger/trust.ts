// The trust rule: what a record read back from the workspace may make lockguard touch outside `.lockguard/`,
// and which records and locks were made on this machine.
//
// Everything under the workspace is someone else's input: a pull request can commit a `.lockguard/`, so a
// record (a quarantine journal's `cacheDir`, guard.json's runner caches, a live marker, a lock) is a claim,
// never an authority. This module is the one owner of both questions that decide whether a claim is acted on:
// - **Made here** (`madeHere`): a record or lock is tied to this machine when it carries this host name and
//   this boot's id (/proc/sys/kernel/random/boot_id, 128 random bits the kernel draws at each boot: nobody
//   outside this machine knows it). Anything else is foreign: written on another host, before the last boot,
//   by a lockguard that did not stamp it (0.1 and before), or forged. A foreign lock or marker is never taken
//   for "dead on this machine": nothing it names is repaired or recovered (`foreignClaims` lists them for the
//   one report line). Without a boot id (no /proc) nothing can be tied, so nothing is repaired from a record.
// - **Trusted places** (`TrustedPlaces`): the folders lockguard may delete, move or write in because of a
//   record are the runner caches this workspace is configured for as they resolve now (computed by
//   integrations/, handed down by the CLI: ledger/ knows no runner) and nothing else. A record may only name one
//   of them, exactly (`trustedCache`); a cache folder inside the workspace must be reached from the workspace
//   root without a link (a committed `.turbo/cache -> /elsewhere` is not a place a record can steer into).
// Invariants: node builtins (some through core/lazy-builtins.ts) and the ledger's names only (live.ts, bundled
// into the pnpmfile, imports it);
// `thisMachine` reads the boot id once per process (one small /proc read, only when a record is written or
// judged).

import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { nodeOs } from '../core/lazy-builtins.js';
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { LEDGER, LEDGER_DIR } from './ledger-layout.js';

/** Where a record or lock was made. */
export interface MachineStamp {
  readonly host: string;
  /** This boot's id, or null where the kernel does not say (then nothing is ever tied to this machine). */
  readonly boot: string | null;
}

const BOOT_ID_PATH = '/proc/sys/kernel/random/boot_id';
// The host name as gethostname(2) gives it (os.hostname()): the kernel's own copy for this UTS namespace, read
// where the boot id is (loading node:os for it cost every `verify` about 0.2 ms).
const HOST_NAME_PATH = '/proc/sys/kernel/hostname';
const BOOT_ID = /^[0-9a-f-]{36}$/;

let machine: MachineStamp | undefined;

/** This host and boot (read once per process). */
export function thisMachine(): MachineStamp {
  if (machine !== undefined) return machine;
  let boot: string | null = null;
  try {
    const text = readFileSync(BOOT_ID_PATH, 'utf8').trim();
    boot = BOOT_ID.test(text) ? text : null;
  } catch {
    boot = null;
  }
  machine = { host: hostName(boot !== null), boot };
  return machine;
}

/** This host's name: the kernel's file where there is a /proc (`linux`), else node:os. */
function hostName(proc: boolean): string {
  if (proc)
    try {
      const text = readFileSync(HOST_NAME_PATH, 'utf8');
      const name = text.endsWith('\n') ? text.slice(0, -1) : text;
      if (name !== '' && !name.includes('\n')) return name;
    } catch {
      // Not there: ask Node.
    }
  return nodeOs().hostname();
}

/** The fields every record and lock carries: `{ host, boot }` of this machine. */
export function machineStamp(): { host: string; boot: string | null } {
  const { host, boot } = thisMachine();
  return { host, boot };
}

/** Whether a parsed record or lock was made on this host since its last boot (missing fields: no). */
export function madeHere(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const { host, boot } = value as { host?: unknown; boot?: unknown };
  const here = thisMachine();
  return (
    here.boot !== null &&
    typeof host === 'string' &&
    host === here.host &&
    typeof boot === 'string' &&
    boot === here.boot
  );
}

/** Whether a record was made on this host (any boot): enough for a restore the user asks for by name. */
export function madeOnThisHost(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const { host } = value as { host?: unknown };
  return typeof host === 'string' && host === thisMachine().host;
}

/** What to do about a ledger (or part of it) that was not made on this machine: one sentence for the report. */
export const FOREIGN_ADVICE =
  'lockguard repairs and recovers nothing from it; if you did not copy or commit it, remove .lockguard/ (it was not made on this machine since it last booted); if this machine crashed during a guarded run, also clear the runner caches it guarded';

/** A runner cache a record may name: the runner and its folder as the workspace's configuration resolves it now. */
export interface TrustedCache {
  readonly runner: string;
  readonly dir: string;
}

/** The places lockguard may touch because of a record: the workspace, and the caches it is configured for now. */
export interface TrustedPlaces {
  readonly workspace: string;
  readonly caches: readonly TrustedCache[];
}

/** No place at all: a record can steer nothing (the default where no caller vouched for any). */
export function noPlaces(workspace: string): TrustedPlaces {
  return { workspace: resolve(workspace), caches: [] };
}

export function trustedPlaces(workspace: string, caches: readonly TrustedCache[]): TrustedPlaces {
  const root = resolve(workspace);
  const seen = new Set<string>();
  const out: TrustedCache[] = [];
  for (const cache of caches) {
    const dir = resolve(root, cache.dir);
    if (!cachePlaceOk(root, dir) || seen.has(`${cache.runner}\0${dir}`)) continue;
    seen.add(`${cache.runner}\0${dir}`);
    out.push({ runner: cache.runner, dir });
  }
  return { workspace: root, caches: out };
}

/**
 * A cache folder is a place when it is not the workspace itself, nothing above it is the ledger, and, inside
 * the workspace, every folder from the workspace root down to it is a real folder (or not there yet): a
 * link committed on the way could lead anywhere.
 */
function cachePlaceOk(root: string, dir: string): boolean {
  if (dir === root || dir.includes('\0') || dir.split(sep).includes(LEDGER_DIR)) return false;
  const rel = relative(root, dir);
  // `/`, an ancestor of the workspace: never a cache.
  if (rel === '' || relative(dir, root) === '' || !relative(dir, root).startsWith('..')) return false;
  if (rel.startsWith('..') || isAbsolute(rel)) return true;
  let current = root;
  for (const part of rel.split(sep)) {
    current = join(current, part);
    let stats: ReturnType<typeof lstatSync> | undefined;
    try {
      stats = lstatSync(current, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (stats === undefined) return true;
    if (!stats.isDirectory()) return false;
  }
  return true;
}

/**
 * The trusted cache a record's folder names (the same folder, exactly, for the same runner when one is given),
 * or undefined: then the record steers nothing. The check is made again now (a link may have appeared since).
 */
export function trustedCache(places: TrustedPlaces, dir: unknown, runner?: string): TrustedCache | undefined {
  if (typeof dir !== 'string' || !isAbsolute(dir) || normalize(dir) !== dir || dir.includes('\0')) return undefined;
  const found = places.caches.find(
    (cache) => cache.dir === resolve(dir) && (runner === undefined || cache.runner === runner),
  );
  return found !== undefined && cachePlaceOk(places.workspace, found.dir) ? found : undefined;
}

/** A claim in `live/` that was not made on this machine: a marker or a lock, by file name. */
export interface ForeignClaim {
  readonly name: string;
  readonly kind: 'marker' | 'lock';
}

/**
 * The markers and locks in `<root>/.lockguard/live/` not made on this machine (none when `live/` is absent:
 * one failed readdir). Read without following links; a file that cannot be read counts as foreign.
 */
export function foreignClaims(root: string): ForeignClaim[] {
  const dir = join(root, LEDGER_DIR, LEDGER.live);
  let names: string[];
  try {
    names = readdirSync(dir);
    // Never through a link: a `live` (or `.lockguard`) that is one is the ledger-fs check's to refuse.
    if (!realFolder(join(root, LEDGER_DIR)) || !realFolder(dir)) return [];
  } catch {
    return [];
  }
  const out: ForeignClaim[] = [];
  for (const name of names.sort()) {
    const lock = name.startsWith('.lock-');
    if (lock ? name.endsWith('.break') || name.includes('.dead.') : name.startsWith('.')) continue;
    const claim = readClaim(join(dir, name));
    // A lock with no holder written (its holder died between two syscalls) never started its work: it is
    // broken without repair (ledger-lock.ts), so it is no claim.
    if (lock && !holderShaped(claim)) continue;
    if (!madeHere(claim)) out.push({ name, kind: lock ? 'lock' : 'marker' });
  }
  return out;
}

function realFolder(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A lock's content names a holder (a pid): then it claims work that may need repair. */
function holderShaped(value: unknown): boolean {
  return value !== null && typeof value === 'object' && typeof (value as { pid?: unknown }).pid === 'number';
}

function readClaim(path: string): unknown {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > 1 << 16) return undefined;
    return JSON.parse(readFileSync(fd, 'utf8'));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The one line about foreign claims, or undefined when there are none. */
export function foreignLine(claims: readonly ForeignClaim[]): string | undefined {
  if (claims.length === 0) return undefined;
  const shown = claims
    .slice(0, 3)
    .map((claim) => `live/${claim.name}`)
    .join(', ');
  const more = claims.length > 3 ? ` and ${claims.length - 3} more` : '';
  return `.lockguard/ holds ${claims.length === 1 ? 'a record' : `${claims.length} records`} not made on this machine (${shown}${more}): ${FOREIGN_ADVICE}.`;
}
