// The CLI's V8 code cache, built on first use on the user's own machine, for the Node that runs it.
//
// Why: compiling a command's bundle from source is most of what lockguard adds to a Node start (verify:
// about 60 M of the 150 M instructions it adds without a CA bundle; callgrind, 2026-12-05). A cache shipped in
// the package helps only the Node that built it (lib/README.md "How the CLI ships"); one written by the
// user's own Node, after the command ran (so the functions it compiled lazily are in it), is accepted by that
// Node on every later run: verify 233 M → 156 M instructions, `run -- true` 311 M → 201 M (Node 20; the
// bench's code-cache module, test/bench/README.md "The code cache").
//
// Owns: where the cache lives (`codeCacheFile`: `$XDG_CACHE_HOME/lockguard/code-cache/<node version>-<arch>/`,
// else `~/.cache/lockguard/...`; one file per bundle and build, `<bundle>-<build id>.v8`), reading it
// (`readCodeCache`) and writing it (`writeCodeCache`).
// When there is none: `LOCKGUARD_CODE_CACHE=off` (or 0, false); under `CI` (a fresh machine per job would
// write a cache and never read it: a first run costs 9-12% more instructions); a bundle without a build id
// (the build stamps each: lib/build/bundle.mjs); no HOME.
// Invariants:
// - Never changes what a command prints or its exit code: every failure (no permission, a full disk, a file
//   or a link where the folder should be, a garbage file) means "no cache", silently.
// - Only a folder of the user's own (owned by this uid, not a link, writable by no one else) is read or written;
//   a cache file is opened without following a link and must be a regular file of this uid.
// - The build id is the bundle's content hash: V8 checks only the source's length, so a cache is never handed
//   to other bytes. Writes are a temporary file then a rename.
// - The folder stays bounded, at no cost to a run that reads its cache (only a write tidies): a write removes
//   the same bundle's other builds and the caches of bundles this build no longer has, and the folder of another
//   Node nothing has read or written for AGED_OUT_DAYS (a Node upgrade leaves its old folder behind).

import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { CHUNKS } from '../core/chunks.js';
import { COMMAND_NAMES } from './command-names.js';

// The line lib/build/bundle.mjs appends to each bundle: its id, the hash of the bytes before it.
const BUILD_ID = /\n\/\/# lockguard-build=([0-9a-f]{32})\n?$/;
const MAX_BYTES = 32 * 1024 * 1024;
// A cache file's name: its bundle, then its build id.
const CACHE_FILE = /^([a-z-]+)-[0-9a-f]{32}\.v8$/;
/** Another Node's folder is removed when none of its files was read or written for this long. */
const AGED_OUT_DAYS = 30;

/** Where the cache of `bundle` (its text `text`) lives for this Node, or undefined when there is none. */
export function codeCacheFile(bundle: string, text: string, env: NodeJS.ProcessEnv): string | undefined {
  const switchValue = (env['LOCKGUARD_CODE_CACHE'] ?? '').toLowerCase();
  if (switchValue === 'off' || switchValue === '0' || switchValue === 'false') return undefined;
  const ci = (env['CI'] ?? '').toLowerCase();
  if (ci !== '' && ci !== '0' && ci !== 'false') return undefined;
  const id = BUILD_ID.exec(text.slice(-60))?.[1];
  if (id === undefined) return undefined;
  const xdg = env['XDG_CACHE_HOME'];
  const home = env['HOME'];
  const base =
    xdg !== undefined && isAbsolute(xdg) ? xdg : home !== undefined && isAbsolute(home) ? join(home, '.cache') : '';
  if (base === '') return undefined;
  const name = basename(bundle).replace(/\.cjs$/, '');
  return join(base, 'lockguard', 'code-cache', `${process.version}-${process.arch}`, `${name}-${id}.v8`);
}

/** The folder is this user's own: a real directory, owned by this uid, writable by no one else. */
function ownFolder(dir: string): boolean {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  const uid = process.getuid?.();
  return (
    stat !== undefined && stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0
  );
}

/** The cache's bytes, or undefined (absent, unreadable, not the user's own, a link, too large). */
export function readCodeCache(file: string): Buffer | undefined {
  try {
    if (!ownFolder(dirname(file))) return undefined;
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const stat = fstatSync(fd);
      const uid = process.getuid?.();
      if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || stat.size > MAX_BYTES) return undefined;
      return readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Write `data` as the cache `file` (a temporary file, then a rename), then tidy the folders (`tidy`). */
export function writeCodeCache(file: string, data: Buffer): void {
  try {
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownFolder(dir) || data.length === 0 || data.length > MAX_BYTES) return;
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, data, { flag: 'wx', mode: 0o600 });
    try {
      renameSync(temp, file);
    } catch {
      rmSync(temp, { force: true });
      return;
    }
    tidy(dir, basename(file));
  } catch {
    // No cache this time: the command's result stands.
  }
}

/** The bundles and chunks this build has (dist/cli/<name>.cjs). */
function bundleNames(): ReadonlySet<string> {
  return new Set<string>(['main', ...COMMAND_NAMES, ...CHUNKS]);
}

/**
 * After writing `kept` in `dir`: remove the other builds of its bundle and the caches of bundles this build does
 * not have, then the other Nodes' folders aged out. Only cache-named regular files and folders of the user's own.
 */
function tidy(dir: string, kept: string): void {
  const bundle = CACHE_FILE.exec(kept)?.[1];
  const known = bundleNames();
  for (const other of readdirSync(dir)) {
    const name = CACHE_FILE.exec(other)?.[1];
    if (other === kept || name === undefined || (name !== bundle && known.has(name))) continue;
    rmSync(join(dir, other), { force: true });
  }
  const now = Date.now();
  const parent = dirname(dir);
  for (const other of readdirSync(parent)) {
    const folder = join(parent, other);
    if (folder !== dir && /^v\d+\.\d+\.\d+[^/]*-[a-z0-9]+$/.test(other) && ownFolder(folder) && agedOut(folder, now))
      rmSync(folder, { recursive: true, force: true });
  }
}

/** Nothing in `folder` (cache files only) was read or written for AGED_OUT_DAYS; anything else there keeps it. */
function agedOut(folder: string, now: number): boolean {
  const limit = now - AGED_OUT_DAYS * 24 * 60 * 60 * 1000;
  for (const name of readdirSync(folder)) {
    const stat = lstatSync(join(folder, name), { throwIfNoEntry: false });
    if (stat === undefined) continue;
    if (!stat.isFile() || !CACHE_FILE.test(name)) return false;
    if (Math.max(stat.atimeMs, stat.mtimeMs) >= limit) return false;
  }
  return true;
}
