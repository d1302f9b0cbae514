// The pre-run check for bun (text bun.lock).
//
// Owns: whether the installed tree holds what bun.lock says. bun keeps no record of an install (no state
// file, measured with bun 1.4.5), but writes into every package folder it installs a `.bun-tag` holding the
// package's integrity, and trusts it on the next install. So: every package bun.lock gives an integrity
// (and this platform installs: `os`/`cpu` match) must be installed with that integrity:
// - hoisted linker (`node_modules/<name>`, nested `.../node_modules/<name>`): bun.lock's keys are the
//   install paths (`x/dep` is `node_modules/x/node_modules/dep`; a workspace's name first: its folder), so
//   each package's tag is read at its own path: a package that went, or a lockfile edit that changes a
//   package, is caught.
// - isolated linker (`node_modules/.bun/<name>@<id>/node_modules/<name>`, bun's default for workspaces):
//   the folder ids are bun's own, so the tags of every store folder are read (one readdir) and each wanted
//   integrity must be among them.
// Invariants: reads only bun.lock (kept by the table), one readdir and one small read per package; never
// writes; a line it cannot read is "nothing checked", never a refusal built on a guess; bun.lockb
// (binary) is not checked.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, LockguardError } from './errors.js';
import type { WorkspaceFingerprints } from './fingerprints.js';
import type { InstallCheck } from './install-verdict.js';
import { bunInfo, bunIntegrity, readBunLock, type BunLock } from './slices/bun-lock.js';
import { readConfigText } from './bounded-read.js';

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
  const wanted: { readonly key: string; readonly integrity: string }[] = [];
  for (const pkg of lock.packages) {
    const integrity = bunIntegrity(pkg);
    if (integrity !== undefined && installsHere(bunInfo(pkg))) wanted.push({ key: pkg.key, integrity });
  }
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
  const missing: string[] = [];
  if (storeFolders !== undefined) {
    const tags = new Set<string>();
    for (const folder of storeFolders) {
      if (folder === 'node_modules' || folder.startsWith('.')) continue;
      const name = storeName(folder);
      const tag = readTag(join(store, folder, 'node_modules', name));
      if (tag !== undefined) tags.add(tag);
    }
    for (const pkg of wanted) if (!tags.has(pkg.integrity)) missing.push(pkg.key);
  } else {
    const workspaceDir = new Map<string, string>();
    for (const workspace of lock.workspaces)
      if (workspace.name !== undefined) workspaceDir.set(workspace.name, workspace.path);
    for (const pkg of wanted) {
      const tag = readTag(join(table.root, installPath(pkg.key, workspaceDir)));
      if (tag !== pkg.integrity) missing.push(pkg.key);
    }
  }
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

/** Whether bun installs a package with these `os`/`cpu` fields on this machine. */
export function installsHere(info: Readonly<Record<string, unknown>> | undefined): boolean {
  if (info === undefined) return true;
  return matches(info['os'], process.platform) && matches(info['cpu'], process.arch);
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
