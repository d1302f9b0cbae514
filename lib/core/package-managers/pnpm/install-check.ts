// pnpm's pre-run check: does the installed tree hold what pnpm-lock.yaml says?
//
// Owns: comparing the lockfile with pnpm's install-tree marker (`node_modules/.pnpm/lock.yaml`, the main
// document of `pnpm-lock.yaml` byte for byte) and that every package the marker lists has its folder (one
// readdir of the virtual store). Answers with a value: a mismatch is a verdict, not an error.
// Invariants: reads only what the table already kept (plus the readdir above); never parses YAML; never
// writes; compares the lockfile as pnpm reads it (a BOM dropped, CRLF as LF).
// Catches what pnpm's own verifyDepsBeforeRun misses (test/core/install-check.test.ts): a lockfile-only edit,
// and a package folder deleted from node_modules/.pnpm. In a Rush repository (rush.ts) the lockfile is
// common/config/rush/pnpm-lock.yaml and the markers are under common/temp/ (the table says where: `pathsOf`).

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startsWith } from '../../digest.js';
import { errnoCode, LockguardError } from '../../errors.js';
import type { InstallCheck } from '../../install-verdict.js';
import type { WorkspaceFingerprints } from '../../table.js';

const PNPM_LOCK = 'pnpm-lock.yaml';
const PNPM_MARKER = 'node_modules/.pnpm/lock.yaml';
const MODULES_YAML = 'node_modules/.modules.yaml';

/** Where the table's lockfile and pnpm's markers are: at the root, or where a layout puts them (Rush: rush.ts). */
interface Paths {
  readonly lock: string;
  readonly marker: string;
  readonly modules: string;
  /** The folder pnpm installed in, workspace-relative with a trailing slash ('' at the root, 'common/temp/'). */
  readonly base: string;
  /** The frozen install of that layout, when it is not pnpm's own. */
  readonly fix?: string;
}

function pathsOf(table: WorkspaceFingerprints): Paths {
  const lock = table.entries.find((entry) => entry.kind === 'lockfile')?.path ?? PNPM_LOCK;
  const marker = table.entries.find((entry) => entry.kind === 'install-marker' && entry.path.endsWith(PNPM_MARKER));
  if (lock === PNPM_LOCK || marker === undefined)
    return { lock: PNPM_LOCK, marker: PNPM_MARKER, modules: MODULES_YAML, base: '' };
  const base = marker.path.slice(0, -PNPM_MARKER.length);
  return { lock, marker: marker.path, modules: `${base}${MODULES_YAML}`, base, fix: 'rush install' };
}

/**
 * The lockfile's bytes as pnpm reads them and writes its marker: a UTF-8 BOM dropped, CRLF (or a lone CR) as
 * LF. pnpm 10 and 12 install such a lockfile, leave it as it is, and write the marker in their own layout.
 */
function asPnpmWrites(bytes: Buffer): Buffer {
  const plain = startsWith(bytes, '\u00ef\u00bb\u00bf') ? bytes.subarray(3) : bytes;
  return plain.includes(13) ? Buffer.from(plain.toString('utf8').replace(/\r\n?/g, '\n')) : plain;
}

/** pnpm 12's two-document lockfile: the install marker holds only the last (main) document. */
export function mainDocument(bytes: Buffer): Buffer {
  const plain = asPnpmWrites(bytes);
  if (!startsWith(plain, '---\n')) return plain;
  const second = plain.indexOf('\n---\n', 3);
  return second === -1 ? plain.subarray(4) : plain.subarray(second + 5);
}

export function checkPnpm(table: WorkspaceFingerprints): InstallCheck {
  const paths = pathsOf(table);
  const fix = paths.fix === undefined ? {} : { fix: paths.fix };
  const lock = table.files.get(paths.lock);
  if (lock === undefined) return { ok: true, checked: 'nothing' };
  const marker = table.files.get(paths.marker);
  if (marker === undefined) {
    return {
      ok: false,
      reason: 'not-installed',
      lockfile: paths.lock,
      detail: `${paths.marker} is missing: nothing was installed from this lockfile`,
      ...fix,
    };
  }
  const wanted = mainDocument(lock);
  if (!wanted.equals(marker)) {
    // Byte-identical after a frozen install; after `pnpm add` the marker still lists orphans until a prune.
    const difference = firstMissing(wanted, marker);
    if (difference !== undefined) {
      return {
        ok: false,
        reason: 'lockfile-differs',
        lockfile: paths.lock,
        detail: `${paths.lock} differs from what the last install recorded (${paths.marker}: ${difference})`,
        ...fix,
      };
    }
  }
  const missing = missingStoreFolders(join(table.root, paths.base), marker, table.files.get(paths.modules));
  if (missing.length > 0) {
    const more = missing.length > 1 ? ` and ${missing.length - 1} more` : '';
    return {
      ok: false,
      reason: 'package-missing',
      lockfile: paths.lock,
      detail: `${paths.base}node_modules/.pnpm/${missing[0]}${more} is missing from the installed tree`,
      ...fix,
    };
  }
  return { ok: true, checked: 'pnpm' };
}

type Sections = Map<string, Map<string, string>>;

/** Top-level sections of a v9 lockfile text; `packages`/`snapshots`/`importers` split into their 2-space keyed entries. */
function sections(text: string): Sections {
  const out: Sections = new Map();
  let section = '';
  let key = '';
  let block: string[] = [];
  const flush = (): void => {
    if (block.length === 0) return;
    let entries = out.get(section);
    if (entries === undefined) out.set(section, (entries = new Map()));
    entries.set(key, block.join('\n').trimEnd());
    block = [];
  };
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) {
      flush();
      const colon = line.indexOf(':');
      section = colon === -1 ? line : line.slice(0, colon);
      key = '';
      if (colon !== -1 && line.slice(colon + 1).trim() !== '') block.push(line.slice(colon + 1).trim());
      continue;
    }
    const keyed = /^ {2}(\S.*?):(?: |$)/.exec(line);
    if (keyed !== null && (section === 'packages' || section === 'snapshots' || section === 'importers')) {
      flush();
      key = keyed[1] ?? '';
    }
    block.push(line);
  }
  flush();
  return out;
}

/** True when pnpm's install marker holds everything the lockfile wants (as the pre-run check judges it). */
export function pnpmMarkerHolds(lockfile: Buffer, marker: Buffer): boolean {
  const wanted = mainDocument(lockfile);
  return wanted.equals(marker) || firstMissing(wanted, marker) === undefined;
}

/**
 * What the lockfile wants that the install marker does not hold, or undefined: every section but
 * packages/snapshots must match exactly, and every wanted package/snapshot entry must be in the marker as is.
 */
function firstMissing(wanted: Buffer, marker: Buffer): string | undefined {
  const want = sections(wanted.toString('utf8'));
  const have = sections(marker.toString('utf8'));
  for (const [name, entries] of want) {
    const installed = have.get(name);
    const subset = name === 'packages' || name === 'snapshots';
    if (installed === undefined) return `no ${name} section`;
    if (!subset && installed.size !== entries.size) return `${name} differ`;
    for (const [key, text] of entries) {
      const have = installed.get(key);
      const same = name === 'importers' ? have !== undefined && importerHolds(text, have) : have === text;
      if (!same) return key === '' ? `${name} differ` : `${name} entry ${key} differs`;
    }
  }
  return undefined;
}

/**
 * An importer's fields, as 4-space keyed blocks (`dependencies:` and its lines, `publishDirectory: dist`);
 * an importer written `  packages/a: {}` has none.
 */
function importerFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  let key = '';
  for (const line of text.split('\n').slice(1)) {
    const field = /^ {4}(\S[^:]*):/.exec(line);
    if (field !== null) key = field[1] ?? '';
    fields.set(key, fields.has(key) ? `${fields.get(key)}\n${line}` : line);
  }
  return fields;
}

/**
 * What a frozen install leaves out of an importer in its marker (pnpm 10 and 11's headless install keeps
 * only dependencies, devDependencies, optionalDependencies and specifiers: `publishDirectory` and
 * `dependenciesMeta` go, read from pnpm 10.34.8's filterImporter and measured; issue 28), and the direct
 * optional dependencies it did not install here (another platform's): the marker holds an importer when
 * every other field is equal and its optional dependencies are among the lockfile's.
 */
const DROPPED_BY_FROZEN = new Set(['publishDirectory', 'dependenciesMeta']);

function importerHolds(wanted: string, installed: string): boolean {
  if (wanted === installed) return true;
  const want = importerFields(wanted);
  const have = importerFields(installed);
  for (const [field, text] of want) {
    if (DROPPED_BY_FROZEN.has(field) && !have.has(field)) continue;
    if (field === 'optionalDependencies') continue;
    if (have.get(field) !== text) return false;
  }
  for (const field of have.keys()) if (!want.has(field)) return false;
  const optional = (fields: Map<string, string>): string[] =>
    (fields.get('optionalDependencies') ?? '').split(/\n(?= {6}\S)/).slice(1);
  const wantedOptional = new Set(optional(want));
  return optional(have).every((entry) => wantedOptional.has(entry));
}

/** The folder name pnpm gives a dependency path in its virtual store, or undefined when it is hashed. */
export function storeFolderName(depPath: string): string | undefined {
  let name = depPath.replace(/[\\/:*?"<>|#]/g, '+');
  if (name.includes('(')) name = name.replace(/\)$/, '').replace(/\)\(|\(|\)/g, '_');
  // Long or mixed-case names get a hash suffix in pnpm: those are counted, not named.
  if (name.length > 120 || (name !== name.toLowerCase() && !name.startsWith('file+'))) return undefined;
  return name;
}

/** The marker's `snapshots:` section, one key per package it installed. */
const SNAPSHOTS = '\nsnapshots:\n';

function snapshotKeys(marker: Buffer): string[] {
  const text = marker.toString('utf8');
  const start = text.indexOf(SNAPSHOTS);
  if (start === -1) return [];
  const keys: string[] = [];
  for (const match of text.slice(start + SNAPSHOTS.length).matchAll(/^ {2}(\S[^\n]*?):(?: \{\})?$/gm)) {
    const raw = match[1];
    if (raw !== undefined) keys.push(raw.replace(/^'(.*)'$/, '$1'));
  }
  return keys;
}

/** What `.modules.yaml` says the check needs: the skipped packages, and whether the linker is hoisted. */
function modulesOf(modulesYaml: Buffer | undefined): { skipped: Set<string>; hoisted: boolean } {
  if (modulesYaml === undefined) return { skipped: new Set(), hoisted: false };
  try {
    const parsed = JSON.parse(modulesYaml.toString('utf8')) as { skipped?: unknown; nodeLinker?: unknown };
    return {
      skipped: new Set(
        Array.isArray(parsed.skipped) ? parsed.skipped.filter((item): item is string => typeof item === 'string') : [],
      ),
      hoisted: parsed.nodeLinker === 'hoisted',
    };
  } catch {
    return { skipped: new Set(), hoisted: false };
  }
}

/**
 * The virtual store's folders the marker lists that are missing. With `node-linker=hoisted` pnpm keeps no
 * virtual store (packages sit in node_modules as npm's do): nothing to check there (measured with pnpm 10).
 */
function missingStoreFolders(root: string, marker: Buffer, modulesYaml: Buffer | undefined): string[] {
  const { skipped, hoisted } = modulesOf(modulesYaml);
  if (hoisted) return [];
  const store = join(root, 'node_modules', '.pnpm');
  let present: Set<string>;
  try {
    present = new Set(readdirSync(store));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return ['(the whole virtual store)'];
    throw new LockguardError('ERR_LOCKGUARD_IO', `Cannot list "${store}" (${errnoCode(error) ?? 'unknown error'}).`, {
      path: store,
      cause: error,
      hint: 'Check its permissions, or reinstall (pnpm install --frozen-lockfile).',
    });
  }
  const missing: string[] = [];
  let hashed = 0;
  for (const key of snapshotKeys(marker)) {
    if (skipped.has(key)) continue;
    const name = storeFolderName(key);
    if (name === undefined) hashed++;
    else if (!present.has(name)) missing.push(name);
  }
  const folders = [...present].filter(
    (name) => name !== 'node_modules' && name !== 'lock.yaml' && !name.startsWith('.'),
  ).length;
  if (missing.length === 0 && folders < hashed) missing.push(`(${hashed - folders} hashed package folders)`);
  return missing;
}
