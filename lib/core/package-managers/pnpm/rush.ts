// Rush repositories: `rush.json` at the root makes a workspace whose lockfile is Rush's own
// (`common/config/rush/pnpm-lock.yaml`), not one at the root.
//
// Owns: `readRushConfig(root)` (rush.json, JSON with comments, read for its package-manager mode and its
// projects), `RUSH_PNPM_ENTRIES` (the table of a Rush repository in pnpm mode) and `rushProjectFolder` (a
// lockfile importer, relative to common/temp, to its project folder).
// Measured with Rush 5.179.0 and pnpm 10.34.8 (test/e2e/rush.test.ts): `rush update` runs pnpm in
// `common/temp` (a generated pnpm-workspace.yaml listing `../../packages/a`, …, with `useWorkspaces: true` in
// `common/config/rush/pnpm-config.json`) and copies the lockfile it wrote to `common/config/rush/pnpm-lock.yaml`,
// byte for byte; pnpm's install markers are `common/temp/node_modules/.pnpm/lock.yaml` (the lockfile's bytes)
// and `common/temp/node_modules/.modules.yaml`.
// Invariants: only rush.json is read (bounded, as every config); npm and yarn modes are refused with the fix,
// never guessed; a broken rush.json is a LockguardError naming the path, never its bytes.

import { join, posix } from 'node:path';
import { readConfigText } from '../../bounded-read.js';
import type { EntrySpec } from '../../entries.js';
import { LockguardError } from '../../errors.js';

/** The file that makes a folder a Rush repository's root. */
export const RUSH_JSON = 'rush.json';

/** Rush's committed lockfile in pnpm mode, workspace-relative. */
const RUSH_PNPM_LOCKFILE = 'common/config/rush/pnpm-lock.yaml';

/** The folder Rush runs pnpm in: the lockfile's importers are relative to it (`../../packages/a`). */
const RUSH_IMPORTER_BASE = 'common/temp';

/** The table of a Rush repository in pnpm mode: its lockfile, its pnpmfile and pnpm settings, pnpm's markers in common/temp. */
export const RUSH_PNPM_ENTRIES: readonly EntrySpec[] = [
  { path: RUSH_PNPM_LOCKFILE, kind: 'lockfile' },
  { path: 'common/config/rush/pnpm-config.json', kind: 'config' },
  { path: 'common/config/rush/.pnpmfile.cjs', kind: 'pnpmfile' },
  { path: `${RUSH_IMPORTER_BASE}/node_modules/.pnpm/lock.yaml`, kind: 'install-marker' },
  { path: `${RUSH_IMPORTER_BASE}/node_modules/.modules.yaml`, kind: 'install-marker', normalize: 'modules-yaml' },
];

interface RushProject {
  readonly packageName: string;
  /** Workspace-relative POSIX folder, as rush.json names it. */
  readonly projectFolder: string;
}

export interface RushConfig {
  /** Only pnpm mode is read: npm and yarn modes are refused (readRushConfig). */
  readonly mode: 'pnpm';
  readonly pnpmVersion: string;
  readonly projects: readonly RushProject[];
}

/** The project folder of a lockfile importer (`../../packages/a` → `packages/a`, `.` → `common/temp`). */
export function rushProjectFolder(importer: string): string {
  return posix.normalize(posix.join(RUSH_IMPORTER_BASE, importer));
}

/** Whether a workspace-relative lockfile path is Rush's (its importers are relative to common/temp). */
export function isRushLockfile(relPath: string): boolean {
  return relPath === RUSH_PNPM_LOCKFILE;
}

function broken(path: string, problem: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BAD_CONFIG', `Rush's configuration "${path}" ${problem}.`, {
    path,
    hint: 'Fix rush.json (rush.json is JSON with comments: rush update reads it the same way), then run lockguard again.',
  });
}

/**
 * JSON with `//` and block comments and trailing commas (as Rush reads rush.json) turned into plain JSON of the
 * same length: comments blanked, a trailing comma before `}` or `]` blanked; strings kept as they are.
 */
function plainJsonOf(text: string): string {
  const out = text.split('');
  let lastComma = -1;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === '\\') at++;
      lastComma = -1;
    } else if (char === '/' && (text[at + 1] === '/' || text[at + 1] === '*')) {
      const block = text[at + 1] === '*';
      const end = block ? text.indexOf('*/', at + 2) : text.indexOf('\n', at);
      const stop = end === -1 ? text.length : block ? end + 2 : end;
      for (let blank = at; blank < stop; blank++) if (out[blank] !== '\n') out[blank] = ' ';
      at = stop - 1;
    } else if (char === ',') {
      lastComma = at;
    } else if (char === '}' || char === ']') {
      if (lastComma !== -1) out[lastComma] = ' ';
      lastComma = -1;
    } else if (char !== undefined && !/\s/.test(char)) {
      lastComma = -1;
    }
  }
  return out.join('');
}

function projectsOf(path: string, value: unknown): RushProject[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw broken(path, 'has a "projects" field that is not a list');
  return value.map((item: unknown, index) => {
    const project = (item ?? {}) as { packageName?: unknown; projectFolder?: unknown };
    const { packageName, projectFolder } = project;
    if (
      typeof packageName !== 'string' ||
      packageName === '' ||
      typeof projectFolder !== 'string' ||
      projectFolder === ''
    )
      throw broken(
        path,
        `has a project (number ${index + 1} in "projects") without a "packageName" and a "projectFolder"`,
      );
    return { packageName, projectFolder: posix.normalize(projectFolder.replaceAll('\\', '/')).replace(/\/$/, '') };
  });
}

/** The mode rush.json names: pnpm (read), npm or yarn (refused with the fix). */
function pnpmVersionOf(path: string, parsed: Record<string, unknown>): string {
  const named = (['pnpmVersion', 'npmVersion', 'yarnVersion'] as const).filter((key) => parsed[key] !== undefined);
  if (named.length === 0)
    throw broken(path, 'names no package manager (expected one of "pnpmVersion", "npmVersion", "yarnVersion")');
  if (named.length > 1) throw broken(path, `names more than one package manager (${named.join(', ')})`);
  const [key] = named;
  if (key !== 'pnpmVersion') {
    const manager = key === 'npmVersion' ? 'npm' : 'yarn';
    throw new LockguardError(
      'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
      `"${path}" sets "${key}": lockguard reads Rush repositories in pnpm mode only (common/config/rush/pnpm-lock.yaml), not Rush's ${manager} mode.`,
      {
        path,
        hint: `Switch the repository to pnpm mode ("pnpmVersion" in rush.json, then rush update), or key the CI cache on the ${manager} lockfile under common/config/rush/ yourself.`,
      },
    );
  }
  const version = parsed['pnpmVersion'];
  if (typeof version !== 'string' || version === '') throw broken(path, 'has a "pnpmVersion" that is not a version');
  return version;
}

/** rush.json at `root`, or undefined when there is none. Throws LockguardError for a broken or npm/yarn-mode file. */
export function readRushConfig(root: string): RushConfig | undefined {
  const path = join(root, RUSH_JSON);
  const text = readConfigText(path, root);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(plainJsonOf(text.replace(/^\uFEFF/, '')));
  } catch {
    // The parser's message quotes the file's text: only the path is said.
    throw broken(path, 'is not valid JSON (with comments)');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw broken(path, 'is not an object');
  const record = parsed as Record<string, unknown>;
  const pnpmVersion = pnpmVersionOf(path, record);
  return { mode: 'pnpm', pnpmVersion, projects: projectsOf(path, record['projects']) };
}
