// The pre-run check for yarn: berry (2+, PnP and node-modules linkers) and classic (v1).
//
// Owns: whether the installed tree holds what yarn.lock says, from the files the table already read, and
// for berry `.yarn/install-state.gz` (read here: it is no table entry, entries.ts). berry: the state records `lockFileChecksum`, sha512("<install-state version>" + yarn.lock's
// bytes) (yarn 4.18.1: version 3, read from its bundle and measured): a lockfile edited after the install
// differs. A package that went: PnP: every zip (and unplugged folder) `.pnp.cjs` maps a package to must
// be in its folder (one readdir per folder: the cache, `.yarn/unplugged`), except the platform packages
// yarn does not install here (the map lists every platform's; yarn.lock's `conditions:` against
// `supportedArchitectures`, conditions.ts); node-modules linker: every location
// `node_modules/.yarn-state.yml` lists must be in its parent folder (one readdir per parent; an entry's
// `aliases:` are merged virtual instances, not paths), and that file itself (gone: node_modules was removed).
// A missing package is named `name@version`, then its path, never by a virtual id.
// classic: `node_modules/.yarn-integrity` lists the lockfile entries the last install linked
// (pattern -> resolved), compared both ways with yarn.lock's. A deleted package folder is not caught for
// classic: it records no locations, and lists a direct optional dependency skipped for this platform with
// no folder (measured), so a folder check would refuse healthy trees.
// Invariants: never parses YAML or the whole install state (a gunzip and a string search); never writes;
// answers with values; a format it does not know (no checksum in the state) is "nothing checked", never
// a refusal built on a guess.

import { nodeCrypto } from '../../lazy-builtins.js';
import { readdirSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { errnoCode, LockguardError } from '../../errors.js';
import { readEntry, realFileSystem } from '../../file-probe.js';
import type { WorkspaceFingerprints } from '../../table.js';
import type { InstallCheck } from '../../install-verdict.js';
import { skippedLocators, supportedArchitectures } from './conditions.js';
import { yarnFlavor } from './flavor.js';
import { stateChecksum } from './state.js';

export { stateChecksum };

const LOCK = 'yarn.lock';
const STATE = '.yarn/install-state.gz';
const PNP = '.pnp.cjs';
const PNP_DATA = '.pnp.data.json';
const NM_STATE = 'node_modules/.yarn-state.yml';
const INTEGRITY = 'node_modules/.yarn-integrity';

export function checkYarn(table: WorkspaceFingerprints): InstallCheck {
  const lock = table.files.get(LOCK);
  if (lock === undefined) return { ok: true, checked: 'nothing' };
  const flavor = yarnFlavor(lock);
  if (flavor === 'berry') return checkBerry(table, lock);
  if (flavor === 'classic') return checkClassic(table, lock);
  return { ok: true, checked: 'nothing' };
}

function refuse(
  reason: 'not-installed' | 'lockfile-differs' | 'package-missing',
  detail: string,
  fix: string,
): InstallCheck {
  return { ok: false, reason, lockfile: LOCK, detail, fix };
}

const BERRY_FIX = 'yarn install --immutable';
const CLASSIC_FIX = 'yarn install --frozen-lockfile';

// ---- berry ---------------------------------------------------------------------------------------------

function lockChecksum(version: number, lock: Buffer): string {
  return nodeCrypto().createHash('sha512').update(String(version)).update(lock).digest('hex');
}

function checkBerry(table: WorkspaceFingerprints, lock: Buffer): InstallCheck {
  // The one file the check reads that the table does not (entries.ts says why).
  const read = readEntry(realFileSystem, join(table.root, STATE));
  if (read.state === 'absent')
    return refuse('not-installed', `${STATE} is missing: nothing was installed from this lockfile`, BERRY_FIX);
  const state = read.bytes;
  const recorded = stateChecksum(state);
  if (recorded === undefined) return { ok: true, checked: 'nothing' };
  // yarn 4 writes version 3; other versions are tried only when it differs (the refusal path).
  if (
    recorded !== lockChecksum(3, lock) &&
    ![...Array(20).keys()].some((version) => version !== 3 && recorded === lockChecksum(version, lock))
  ) {
    return refuse(
      'lockfile-differs',
      `${LOCK} differs from what the last install resolved (${STATE} records another lockfile)`,
      BERRY_FIX,
    );
  }
  const pnpData = table.files.get(PNP_DATA) ?? table.files.get(PNP);
  if (pnpData !== undefined) {
    const skipped = skippedLocators(lock, supportedArchitectures(table.files.get('.yarnrc.yml')));
    return missingFrom(table.root, pnpLocations(pnpData, skipped), BERRY_FIX) ?? { ok: true, checked: 'yarn' };
  }
  const nmState = table.files.get(NM_STATE);
  if (nmState !== undefined)
    return missingFrom(table.root, nmLocations(nmState), BERRY_FIX) ?? { ok: true, checked: 'yarn' };
  const linker = nodeLinker(table.files.get('.yarnrc.yml'));
  if (linker === 'pnp')
    return refuse('package-missing', `${PNP} is missing: Node cannot resolve any package`, BERRY_FIX);
  // yarn 4.18.1 writes it on every node-modules install, a workspace without dependencies included (measured):
  // gone, node_modules was removed (or never linked) after the install the state records.
  if (linker === 'node-modules')
    return refuse('package-missing', `${NM_STATE} is missing: the node_modules tree is not installed`, BERRY_FIX);
  return { ok: true, checked: 'yarn' };
}

/** The `nodeLinker` setting of a .yarnrc.yml ('pnp' when unset, yarn's default). */
export function nodeLinker(rc: Buffer | undefined): string {
  const match = rc === undefined ? null : /^nodeLinker:[ \t]*["']?([\w-]+)/m.exec(rc.toString('utf8'));
  return match?.[1] ?? 'pnp';
}

/**
 * A PnP map's tokens, in order: a package's name with its first reference (`["name", [ ["ref", {`), a
 * further reference of the same name (`}], ["ref", {`), a location. Lines of .pnp.cjs end in `\` (a JS
 * string), .pnp.data.json's do not; dependency pairs (`["name", "ref"]`, aliases `["a", ["b", "ref"]]`)
 * match none of them.
 */
const PNP_TOKEN =
  /\[[\s\\]*"((?:[^"\\]|\\.)*)",[\s\\]*\[[\s\\]*\["((?:[^"\\]|\\.)*)",[\s\\]*\{|\}\],[\s\\]*\["((?:[^"\\]|\\.)*)",[\s\\]*\{|"packageLocation":[\s\\]*"((?:[^"\\]|\\.)*)"/g;

/** A package PnP maps, by its locator (`name@reference`, a virtual reference's `virtual:…#` dropped). */
export interface PnpLocation {
  readonly locator: string;
  readonly location: string;
}

/**
 * Where PnP keeps each installed package, relative to the root: the zip in the cache (virtual paths
 * resolved as yarn's VirtualFS does) or the unplugged folder; workspaces and links are skipped. A package
 * whose locator is in `skipped` (a platform yarn does not install here) is left out: the map lists every
 * platform's package, yarn creates only those `supportedArchitectures` allows (measured with yarn 4.18.1).
 */
export function pnpLocations(bytes: Buffer, skipped: ReadonlySet<string> = new Set()): PnpLocation[] {
  const out = new Map<string, string>();
  let name = '';
  let reference = '';
  for (const match of bytes.toString('utf8').matchAll(PNP_TOKEN)) {
    if (match[1] !== undefined) [name, reference] = [match[1], match[2] ?? ''];
    else if (match[3] !== undefined) reference = match[3];
    const raw = match[4];
    if (raw === undefined) continue;
    const locator = `${name}@${reference.replace(/^virtual:[^#]*#/, '')}`;
    if (skipped.has(locator)) continue;
    const location = posix.normalize(resolveVirtual(raw));
    const zip = location.indexOf('.zip/');
    if (zip !== -1) out.set(location.slice(0, zip + 4), locator);
    else if (location.includes('.yarn/unplugged/')) out.set(location.replace(/\/node_modules\/.*$/, ''), locator);
  }
  return [...out].map(([location, locator]) => ({ location, locator }));
}

function resolveVirtual(location: string): string {
  const match = /^(.*?__virtual__)\/[^/]+\/(\d+)\/(.*)$/.exec(location);
  if (match === null) return location;
  return resolveVirtual(posix.join(posix.dirname(match[1] ?? ''), '../'.repeat(Number(match[2])), match[3] ?? ''));
}

/**
 * Every `locations:` entry of node_modules/.yarn-state.yml (the root's "" skipped), with its locator. An
 * entry's `aliases:` (other virtual instances of the same package the hoister merged into its locations)
 * are locators, not paths: not read (they named "virtual:<128 hex>#npm:…" as missing, issue 28).
 */
export function nmLocations(bytes: Buffer): PnpLocation[] {
  const out: PnpLocation[] = [];
  let locator = '';
  let inLocations = false;
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line.startsWith('"') || /^[^\s#]/.test(line)) {
      locator = unquote(line.replace(/:\s*$/, ''));
      inLocations = false;
    } else if (/^ {2}\S/.test(line)) inLocations = line === '  locations:';
    else if (inLocations) {
      const item = /^ {4}- "((?:[^"\\]|\\.)*)"$/.exec(line);
      if (item === null) continue;
      const location = (item[1] ?? '').includes('\\') ? (JSON.parse(`"${item[1] ?? ''}"`) as string) : (item[1] ?? '');
      if (location !== '') out.push({ location, locator: locator.replace(/@virtual:[^#]*#/, '@') });
    }
  }
  return out;
}

/** `name@npm:1.2.3` -> `name@1.2.3`; other references as yarn spells them (`b@workspace:packages/b`). */
export function locatorLabel(locator: string): string {
  const at = locator.indexOf('@', 1);
  if (at === -1) return locator;
  const reference = locator.slice(at + 1).replace(/^virtual:[^#]*#/, '');
  return `${locator.slice(0, at)}@${reference.startsWith('npm:') ? reference.slice(4) : reference}`;
}

/**
 * The first package (by `name@version`, its path after it) whose location is not in its folder, as a
 * refusal; one readdir per folder.
 */
function missingFrom(root: string, packages: readonly PnpLocation[], fix: string): InstallCheck | undefined {
  const byFolder = new Map<string, PnpLocation[]>();
  for (const pkg of packages) {
    const folder = dirname(pkg.location);
    let names = byFolder.get(folder);
    if (names === undefined) byFolder.set(folder, (names = []));
    names.push(pkg);
  }
  const missing: PnpLocation[] = [];
  for (const [folder, pkgs] of byFolder) {
    const present = listing(join(root, folder));
    for (const pkg of pkgs) if (present === undefined || !present.has(basename(pkg.location))) missing.push(pkg);
  }
  const first = missing[0];
  if (first === undefined) return undefined;
  const more = missing.length > 1 ? ` and ${missing.length - 1} more` : '';
  return {
    ok: false,
    reason: 'package-missing',
    lockfile: LOCK,
    detail: `${locatorLabel(first.locator)} (${first.location})${more} ${missing.length > 1 ? 'are' : 'is'} missing from the installed tree`,
    fix,
  };
}

function listing(dir: string): Set<string> | undefined {
  try {
    return new Set(readdirSync(dir));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw new LockguardError('ERR_LOCKGUARD_IO', `Cannot list "${dir}" (${errnoCode(error) ?? 'unknown error'}).`, {
      path: dir,
      cause: error,
      hint: 'Check its permissions, or reinstall (yarn install --immutable).',
    });
  }
}

// ---- classic -------------------------------------------------------------------------------------------

/** pattern -> resolved ('' when the entry has none) of a yarn v1 lockfile, by a line scan. */
export function classicResolutions(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let patterns: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    if (line.charCodeAt(0) !== 32) {
      patterns = splitPatterns(line.replace(/:\s*$/, ''));
      for (const pattern of patterns) out.set(pattern, '');
      continue;
    }
    if (line.startsWith('  resolved ')) {
      const resolved = unquote(line.slice(11).trim());
      for (const pattern of patterns) out.set(pattern, resolved);
    }
  }
  return out;
}

/** `"a@^1", a@^2` -> ['a@^1', 'a@^2']. */
export function splitPatterns(key: string): string[] {
  const out: string[] = [];
  for (const part of key.match(/"(?:[^"\\]|\\.)*"|[^,\s][^,]*/g) ?? []) out.push(unquote(part.trim()));
  return out;
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  return value.includes('\\') ? (JSON.parse(value) as string) : value.slice(1, -1);
}

interface Integrity {
  readonly lockfileEntries?: unknown;
}

function checkClassic(table: WorkspaceFingerprints, lock: Buffer): InstallCheck {
  const marker = table.files.get(INTEGRITY);
  if (marker === undefined)
    return refuse('not-installed', `${INTEGRITY} is missing: nothing was installed from this lockfile`, CLASSIC_FIX);
  let integrity: Integrity;
  try {
    integrity = JSON.parse(marker.toString('utf8')) as Integrity;
  } catch {
    return refuse('not-installed', `${INTEGRITY} is not valid JSON: yarn cannot tell what it installed`, CLASSIC_FIX);
  }
  const entries = integrity?.lockfileEntries;
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries))
    return { ok: true, checked: 'nothing' };
  const wanted = classicResolutions(lock.toString('utf8'));
  const installed = entries as Record<string, unknown>;
  for (const [pattern, resolved] of Object.entries(installed)) {
    if (!wanted.has(pattern))
      return refuse('lockfile-differs', `${pattern} is installed but not in ${LOCK}`, CLASSIC_FIX);
    if (wanted.get(pattern) !== (typeof resolved === 'string' ? resolved : ''))
      return refuse('lockfile-differs', `${pattern} is installed from another source than ${LOCK} says`, CLASSIC_FIX);
  }
  for (const pattern of wanted.keys()) {
    if (!Object.hasOwn(installed, pattern))
      return refuse('lockfile-differs', `${pattern} is in ${LOCK} but the last install did not link it`, CLASSIC_FIX);
  }
  // No folder check: classic records no locations, and a direct optional dependency skipped for this
  // platform is listed (topLevelPatterns, lockfileEntries) with no folder (measured with yarn 1.22.22).
  return { ok: true, checked: 'yarn' };
}
