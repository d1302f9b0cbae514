// The pre-run check for bun (text bun.lock).
//
// Owns: whether the installed tree holds what bun.lock says. bun keeps no record of an install (no state
// file, measured with bun 1.4.5); what it leaves is read as bun itself leaves it. Every package bun.lock
// lists that this platform installs (`os`/`cpu`/`libc` match: a platform package of another machine is
// never wanted) must be installed as the lockfile says:
// - a registry package (`name@<version>`): bun writes no `.bun-tag` for it, so it is judged by name and
//   version: hoisted linker, the package.json at the path bun.lock's key names (`x/dep` is
//   `node_modules/x/node_modules/dep`; a workspace's name first: its folder); isolated linker, its store
//   folder `node_modules/.bun/<name, / as +>@<version>` (a `+<16 hex>` suffix when peers resolve it).
// - a tarball (`file:`, a URL): bun writes `.bun-tag` holding its integrity, and trusts it on the next
//   install: at its hoisted path, or among the store folders' tags (one readdir).
// - workspaces, links and git packages are not judged (bun records nothing to compare them with).
// A package is named `name@version` (a tarball by its lockfile key), never by a store folder.
// Invariants: reads only bun.lock (kept by the table), one readdir and one small read per package; never
// writes; a line it cannot read is "nothing checked", never a refusal built on a guess; bun.lockb
// (binary) is not checked.

import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, LockguardError } from '../../errors.js';
import type { WorkspaceFingerprints } from '../../table.js';
import type { InstallCheck } from '../../install-verdict.js';
import { bunInfo, bunIntegrity, readBunLock, type BunLock } from './lock.js';
import { readConfigText } from '../../bounded-read.js';

const LOCK = 'bun.lock';
const FIX = 'bun install --frozen-lockfile';

export function checkBun(table: WorkspaceFingerprints): InstallCheck {
  const bytes = table.files.get(LOCK);
  if (bytes === undefined) return { ok: true, checked: 'nothing' };
  let lock: BunLock;
  try {
    lock = readBunLock(bytes.toString('utf8'), join(table.root, LOCK));
  } catch {
    return { ok: true, checked: 'nothing' };
  }
  const wanted = wantedPackages(lock);
  const store = join(table.root, 'node_modules', '.bun');
  const storeFolders = list(store);
  if (storeFolders === undefined && list(join(table.root, 'node_modules')) === undefined && wanted.length > 0) {
    return {
      ok: false,
      reason: 'not-installed',
      lockfile: LOCK,
      detail: 'node_modules is missing: nothing was installed from this lockfile',
      fix: FIX,
    };
  }
  const missing =
    storeFolders !== undefined
      ? [...missingIsolated(store, storeFolders, wanted), ...swappedLinks(table.root, lock, wanted)]
      : missingHoisted(table.root, lock, wanted);
  if (missing.length === 0) return { ok: true, checked: 'bun' };
  const more = missing.length > 1 ? ` and ${missing.length - 1} more` : '';
  return {
    ok: false,
    reason: 'package-missing',
    lockfile: LOCK,
    detail: `${missing[0]}${more} ${missing.length > 1 ? 'are' : 'is'} not installed as ${LOCK} says (missing, or another version)`,
    fix: FIX,
  };
}

/** One package bun installs here: from the registry (judged by name and version) or a tarball (by its tag). */
interface Wanted {
  readonly key: string;
  readonly name: string;
  readonly version: string | undefined;
  readonly integrity: string | undefined;
}

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** What bun.lock says this platform installs: registry packages and tarballs (workspaces, links, git: not judged). */
function wantedPackages(lock: BunLock): Wanted[] {
  const wanted: Wanted[] = [];
  for (const pkg of lock.packages) {
    const at = pkg.ident.indexOf('@', 1);
    const info = bunInfo(pkg);
    // Platform fields it cannot read: not judged (a refusal would rest on a guess about this machine).
    if (info === undefined && /"(?:os|cpu)":/.test(pkg.text)) continue;
    if (at === -1 || !installsHere(info)) continue;
    const name = pkg.ident.slice(0, at);
    const spec = pkg.ident.slice(at + 1);
    const integrity = bunIntegrity(pkg);
    if (SEMVER.test(spec)) wanted.push({ key: pkg.key, name, version: spec, integrity });
    else if (integrity !== undefined) wanted.push({ key: pkg.key, name, version: undefined, integrity });
  }
  return wanted;
}

/** `name@version` for a registry package, the lockfile key for a tarball. */
function label(pkg: Wanted): string {
  return pkg.version === undefined ? pkg.key : `${pkg.name}@${pkg.version}`;
}

/**
 * Isolated linker: bun names a registry package's store folder `<name, / as +>@<version>`, with `+<16 hex>`
 * when peers resolve it (measured with bun 1.4.5); a tarball's folder holds its `.bun-tag`.
 */
function missingIsolated(store: string, folders: readonly string[], wanted: readonly Wanted[]): string[] {
  const registry = new Set<string>();
  const tags = new Set<string>();
  const tarballs = wanted.some((pkg) => pkg.version === undefined);
  for (const folder of folders) {
    if (folder === 'node_modules' || folder.startsWith('.')) continue;
    registry.add(folder.replace(/\+[0-9a-f]{16}$/, ''));
    if (!tarballs || SEMVER.test(folder.slice(folder.indexOf('@', 1) + 1))) continue;
    const tag = readTag(join(store, folder, 'node_modules', storeName(folder)));
    if (tag !== undefined) tags.add(tag);
  }
  const missing: string[] = [];
  for (const pkg of wanted) {
    const present =
      pkg.version === undefined
        ? pkg.integrity !== undefined && tags.has(pkg.integrity)
        : registry.has(`${pkg.name.replace('/', '+')}@${pkg.version}`);
    if (!present) missing.push(label(pkg));
  }
  return missing;
}

/**
 * Isolated linker: each workspace's own dependencies are links into the store (`node_modules/<name>` ->
 * `.bun/<folder>/node_modules/<name>`); a link to another version's folder (an install that did not save,
 * a hand swap) or a link that went is named. One readlink per direct dependency.
 */
function swappedLinks(root: string, lock: BunLock, wanted: readonly Wanted[]): string[] {
  const byKey = new Map(wanted.map((pkg) => [pkg.key, pkg]));
  const out: string[] = [];
  for (const workspace of lock.workspaces) {
    for (const dep of workspace.deps.slice(0, workspace.required)) {
      const pkg = (workspace.name === undefined ? undefined : byKey.get(`${workspace.name}/${dep}`)) ?? byKey.get(dep);
      if (pkg?.version === undefined) continue;
      const target = readLink(join(root, workspace.path, 'node_modules', dep));
      if (target === 'not-a-link') continue;
      const folder = target === undefined ? undefined : /(?:^|\/)\.bun\/([^/]+)\/node_modules\//.exec(target)?.[1];
      if (folder?.replace(/\+[0-9a-f]{16}$/, '') !== `${pkg.name.replace('/', '+')}@${pkg.version}`)
        out.push(label(pkg));
    }
  }
  return [...new Set(out)];
}

function readLink(path: string): string | undefined | 'not-a-link' {
  try {
    return readlinkSync(path);
  } catch (error) {
    if (errnoCode(error) === 'EINVAL') return 'not-a-link';
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw new LockguardError(
      'ERR_LOCKGUARD_IO',
      `Cannot read the link "${path}" (${errnoCode(error) ?? 'unknown error'}).`,
      {
        path,
        cause: error,
        hint: `Check its permissions, or reinstall (${FIX}).`,
      },
    );
  }
}

/**
 * Hoisted linker: each package sits at the path its key names; a registry package's own package.json there
 * must name it and its version (bun writes no tag for those), a tarball's `.bun-tag` its integrity.
 */
function missingHoisted(root: string, lock: BunLock, wanted: readonly Wanted[]): string[] {
  const workspaceDir = new Map<string, string>();
  for (const workspace of lock.workspaces)
    if (workspace.name !== undefined) workspaceDir.set(workspace.name, workspace.path);
  const missing: string[] = [];
  for (const pkg of wanted) {
    const folder = join(root, installPath(pkg.key, workspaceDir));
    const present =
      pkg.version === undefined
        ? readTag(folder) === pkg.integrity
        : sameManifest(readManifest(folder), pkg.name, pkg.version);
    if (!present) missing.push(label(pkg));
  }
  return missing;
}

function sameManifest(manifest: unknown, name: string, version: string): boolean {
  if (manifest === null || typeof manifest !== 'object') return false;
  const fields = manifest as { name?: unknown; version?: unknown };
  return fields.name === name && fields.version === version;
}

/** The package name of a store folder: `dep@<id>` -> dep, `@s+c@<id>` -> @s/c. */
export function storeName(folder: string): string {
  const at = folder.indexOf('@', 1);
  const name = at === -1 ? folder : folder.slice(0, at);
  return name.startsWith('@') ? name.replace('+', '/') : name;
}

/** bun.lock key -> install path under the hoisted linker: `x/dep` -> node_modules/x/node_modules/dep. */
export function installPath(key: string, workspaceDir: ReadonlyMap<string, string>): string {
  const names = keyNames(key);
  const first = names[0] ?? '';
  const base = names.length > 1 ? workspaceDir.get(first) : undefined;
  const chain = base === undefined ? names : names.slice(1);
  return [base === undefined || base === '' ? '' : base, ...chain.map((name) => `node_modules/${name}`)]
    .filter((part) => part !== '')
    .join('/');
}

/** `@s/c/dep/@t/u` -> ['@s/c', 'dep', '@t/u']. */
export function keyNames(key: string): string[] {
  const parts = key.split('/');
  const names: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (part.startsWith('@') && i + 1 < parts.length) names.push(`${part}/${parts[++i] ?? ''}`);
    else names.push(part);
  }
  return names;
}

function matches(rule: unknown, value: string): boolean {
  const list =
    typeof rule === 'string'
      ? [rule]
      : Array.isArray(rule)
        ? rule.filter((item): item is string => typeof item === 'string')
        : [];
  if (list.length === 0) return true;
  const allowed = list.filter((item) => !item.startsWith('!'));
  if (list.includes(`!${value}`)) return false;
  return allowed.length === 0 || allowed.includes(value) || allowed.includes('any');
}

/** Whether bun installs a package with these `os`/`cpu`/`libc` fields on this machine. */
export function installsHere(info: Readonly<Record<string, unknown>> | undefined, libc = hostLibc): boolean {
  if (info === undefined) return true;
  if (!matches(info['os'], process.platform) || !matches(info['cpu'], process.arch)) return false;
  return info['libc'] === undefined || matches(info['libc'], libc());
}

let libcCache: string | undefined;

/** `glibc` or `musl` on Linux (Node's own report says which libc it runs on), `unknown` elsewhere. */
function hostLibc(): string {
  if (libcCache !== undefined) return libcCache;
  if (process.platform !== 'linux') libcCache = 'unknown';
  else {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: unknown } } | undefined)?.header;
    libcCache = header?.glibcVersionRuntime === undefined ? 'musl' : 'glibc';
  }
  return libcCache;
}

function list(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw new LockguardError('ERR_LOCKGUARD_IO', `Cannot list "${dir}" (${errnoCode(error) ?? 'unknown error'}).`, {
      path: dir,
      cause: error,
      hint: `Check its permissions, or reinstall (${FIX}).`,
    });
  }
}

function readManifest(folder: string): unknown {
  let text: string | undefined;
  try {
    text = readConfigText(join(folder, 'package.json'));
    if (text === undefined) return undefined;
  } catch (error) {
    if (error instanceof LockguardError) throw error;
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw new LockguardError(
      'ERR_LOCKGUARD_IO',
      `Cannot read "${join(folder, 'package.json')}" (${errnoCode(error) ?? 'unknown error'}).`,
      { path: join(folder, 'package.json'), cause: error, hint: `Check its permissions, or reinstall (${FIX}).` },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function readTag(folder: string): string | undefined {
  try {
    return readConfigText(join(folder, '.bun-tag'))?.trim();
  } catch (error) {
    if (error instanceof LockguardError) throw error;
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw new LockguardError(
      'ERR_LOCKGUARD_IO',
      `Cannot read "${join(folder, '.bun-tag')}" (${errnoCode(error) ?? 'unknown error'}).`,
      {
        path: join(folder, '.bun-tag'),
        cause: error,
        hint: `Check its permissions, or reinstall (${FIX}).`,
      },
    );
  }
}
