// npm's pre-run check: does the installed tree hold what package-lock.json (or npm-shrinkwrap.json) says?
//
// Owns: comparing the lockfile with npm's install-tree marker (`node_modules/.package-lock.json`, the
// lockfile's `packages` minus the root entry, naming the field that differs) and that every package the
// marker lists has its folder (one readdir per parent folder). A mismatch is a verdict, not an error.
// Invariants: reads only what the table already kept (plus the readdirs above); never writes; a broken JSON
// file is refused with a reason, line and column, never with its bytes.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../digest.js';
import { errnoCode, LockguardError } from '../../errors.js';
import type { InstallCheck } from '../../install-verdict.js';
import { parseLockfileJson } from '../../json-lockfile.js';
import type { WorkspaceFingerprints } from '../../table.js';

const NPM_MARKER = 'node_modules/.package-lock.json';

export function checkNpm(table: WorkspaceFingerprints): InstallCheck {
  const name = table.files.has('npm-shrinkwrap.json') ? 'npm-shrinkwrap.json' : 'package-lock.json';
  const lock = table.files.get(name);
  if (lock === undefined) return { ok: true, checked: 'nothing' };
  const marker = table.files.get(NPM_MARKER);
  if (marker === undefined) {
    return {
      ok: false,
      reason: 'not-installed',
      lockfile: name,
      detail: `${NPM_MARKER} is missing: nothing was installed from this lockfile`,
    };
  }
  const wanted = packagesOf(table.root, name, lock);
  const installed = packagesOf(table.root, NPM_MARKER, marker);
  for (const [path, entry] of Object.entries(installed)) {
    if (!(path in wanted))
      return {
        ok: false,
        reason: 'lockfile-differs',
        lockfile: name,
        detail: `${path} is installed but not in ${name}`,
      };
    const field = differingField(entry, wanted[path]);
    if (field !== undefined)
      return {
        ok: false,
        reason: 'lockfile-differs',
        lockfile: name,
        detail: `${path} is installed with another "${field}" than ${name} says`,
      };
  }
  for (const [path, entry] of Object.entries(wanted)) {
    if (path === '' || path in installed) continue;
    const optional =
      entry !== null &&
      typeof entry === 'object' &&
      ['optional', 'dev', 'devOptional', 'peer'].some((flag) => (entry as Record<string, unknown>)[flag] === true);
    if (!optional)
      return {
        ok: false,
        reason: 'lockfile-differs',
        lockfile: name,
        detail: `${path} is in ${name} but not installed`,
      };
  }
  const gone = missingNpmFolders(table.root, Object.keys(installed));
  if (gone.length > 0) {
    const more = gone.length > 1 ? ` and ${gone.length - 1} more` : '';
    return {
      ok: false,
      reason: 'package-missing',
      lockfile: name,
      detail: `${gone[0]}${more} is missing from the installed tree (${NPM_MARKER} lists it)`,
    };
  }
  return { ok: true, checked: 'npm' };
}

/**
 * npm's flags say why a package is in the tree (`dev`, `optional`, `devOptional`, `peer`), not what is
 * installed: npm computes them again for each tree it writes, so the hidden lockfile may carry other
 * flags than the lockfile for the same package (issue 28). They are not compared.
 */
const NPM_FLAGS = new Set(['dev', 'optional', 'devOptional', 'peer']);

/** The first field (sorted, flags aside) whose value differs between two package entries, or undefined. */
function differingField(installed: unknown, wanted: unknown): string | undefined {
  if (canonicalJson(installed) === canonicalJson(wanted)) return undefined;
  const a = (installed !== null && typeof installed === 'object' ? installed : {}) as Record<string, unknown>;
  const b = (wanted !== null && typeof wanted === 'object' ? wanted : {}) as Record<string, unknown>;
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (!NPM_FLAGS.has(key) && canonicalJson(a[key]) !== canonicalJson(b[key])) return key;
  }
  return undefined;
}

/**
 * The installed packages (`node_modules/...` paths from the marker) whose folder is gone: one readdir per
 * distinct parent folder (a few dozen even for large trees), never a stat per package.
 */
function missingNpmFolders(root: string, paths: readonly string[]): string[] {
  const listings = new Map<string, Set<string> | undefined>();
  const missing: string[] = [];
  for (const path of paths) {
    if (!path.startsWith('node_modules/')) continue;
    const slash = path.lastIndexOf('/');
    const parent = path.slice(0, slash);
    const leaf = path.slice(slash + 1);
    if (!listings.has(parent)) {
      let names: Set<string> | undefined;
      try {
        names = new Set(readdirSync(join(root, parent)));
      } catch (error) {
        if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') {
          throw new LockguardError(
            'ERR_LOCKGUARD_IO',
            `Cannot list "${join(root, parent)}" (${errnoCode(error) ?? 'unknown error'}).`,
            { path: join(root, parent), cause: error, hint: 'Check its permissions, or reinstall (npm ci).' },
          );
        }
        names = undefined;
      }
      listings.set(parent, names);
    }
    if (listings.get(parent)?.has(leaf) !== true) missing.push(path);
  }
  return missing;
}

function packagesOf(root: string, relPath: string, bytes: Buffer): Record<string, unknown> {
  const { value } = parseLockfileJson(bytes, join(root, relPath));
  const packages = (value as { packages?: unknown } | null)?.packages;
  return packages !== null && typeof packages === 'object' ? (packages as Record<string, unknown>) : {};
}
