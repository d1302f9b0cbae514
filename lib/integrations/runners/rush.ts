// Rush: a caching runner whose build cache needs no withholding, found so the line can say why plainly.
//
// Owns: `rushHere(root, steps)`: Rush, from `rush.json` at the root or a command step that starts it
// (`rush`, `rushx`), and whether its build cache is on (`common/config/rush/build-cache.json`,
// `buildCacheEnabled`: opt-in). Measured with Rush 5.179.0 in pnpm mode (test/e2e/rush.test.ts): its build
// cache keys each project on that project's own dependencies (`<project>/.rush/temp/shrinkwrap-deps.json`, one
// line per lockfile entry it reaches), so a lockfile-only bump rebuilds exactly the project it reaches; and an
// install inside `rush build` fails ("Another Rush command is already running"), so no task of a build moves
// the lockfile its keys folded. Nothing to withhold.
// Invariants: a few lstats and one small bounded read; never runs anything; never throws; Rush is never
// counted as a guarded runner, never called unguarded, and its cache (common/temp/build-cache) is never touched.

import { join } from 'node:path';
import { readConfigText } from '../../core/bounded-read.js';
import { executableName } from '../package-managers/argv.js';
import { present } from './workspace-files.js';

/** Where Rush says its build cache is switched on (off when the file is absent). */
const RUSH_BUILD_CACHE_JSON = 'common/config/rush/build-cache.json';
/** Where Rush says pnpm runs as a workspace (`useWorkspaces`; off when absent, measured with Rush 5.179.0). */
const RUSH_PNPM_CONFIG_JSON = 'common/config/rush/pnpm-config.json';

export interface RushHere {
  /** What says it is here: `rush.json`, or `the command starts rush`. */
  readonly evidence: string;
  /**
   * Its build cache: `on` (buildCacheEnabled: true), `off` (no build-cache.json, or buildCacheEnabled is not
   * true), `unread` (the file is there but lockguard could not read it as JSON with comments).
   */
  readonly buildCache: Switch;
  /**
   * pnpm runs as a workspace in common/temp (`useWorkspaces: true`): the lockfile has an importer per project.
   * Without it every project is a `@rush-temp/<name>` tarball of the one importer `common/temp`.
   */
  readonly workspaces: Switch;
}

type Switch = 'on' | 'off' | 'unread';

/** A top-level boolean of one of Rush's JSON-with-comments files: off when the file or the key is absent. */
function switchOf(root: string, file: string, key: string): Switch {
  let text: string | undefined;
  try {
    text = readConfigText(join(root, file), root);
  } catch {
    return 'unread';
  }
  if (text === undefined) return 'off';
  // A comment that holds the words does not count as set.
  const plain = text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
  const match = new RegExp(`"${key}"\\s*:\\s*(true|false)\\b`).exec(plain);
  if (match === null) return 'off';
  return match[1] === 'true' ? 'on' : 'off';
}

/** Whether a step (a simple command the guarded command may run: detect.ts stepsOf) starts Rush. */
function startsRush(argv: readonly string[]): boolean {
  const first = argv[0];
  if (first === undefined) return false;
  const name = executableName(first);
  return name === 'rush' || name === 'rushx';
}

/**
 * Rush at `root` (rush.json) or started by one of `steps` (asked only where rush.json is absent: the walk
 * through scripts is not free), or undefined.
 */
export function rushHere(root: string, steps: () => readonly (readonly string[])[] = () => []): RushHere | undefined {
  const configured = present(join(root, 'rush.json'));
  if (!configured && !steps().some(startsRush)) return undefined;
  return {
    evidence: configured ? 'rush.json' : 'the command starts rush',
    buildCache: switchOf(root, RUSH_BUILD_CACHE_JSON, 'buildCacheEnabled'),
    workspaces: switchOf(root, RUSH_PNPM_CONFIG_JSON, 'useWorkspaces'),
  };
}

/**
 * What Rush does with a lockfile change, in words (the run's line and doctor say the same). Backed by the
 * measurements in this module's header.
 */
export function rushWords(rush: RushHere): string {
  const cache =
    rush.buildCache === 'on'
      ? "Rush's build cache (common/temp/build-cache) keys each project on its own dependencies (shrinkwrap-deps.json)"
      : rush.buildCache === 'off'
        ? `Rush's build cache is off here (${RUSH_BUILD_CACHE_JSON}); when on, it keys each project on its own dependencies (shrinkwrap-deps.json)`
        : `Rush's build cache settings (${RUSH_BUILD_CACHE_JSON}) could not be read; when on, it keys each project on its own dependencies (shrinkwrap-deps.json)`;
  return `Rush (${rush.evidence}): ${cache} and Rush refuses its installs (rush install, update, add) during a build, so there is nothing to withhold; lockguard leaves its cache alone`;
}

/**
 * Where pnpm does not run as a workspace (no `useWorkspaces: true`), what per-project slices cannot tell apart
 * (doctor warns): measured with Rush 5.179.0, the lockfile's one importer `.` reaches every project as a
 * `@rush-temp/<name>` tarball, so `key --projects` lists one project, common/temp.
 */
export function rushWorkspacesGap(rush: RushHere): { readonly detail: string; readonly fix: string } | undefined {
  if (rush.workspaces === 'on') return undefined;
  return {
    detail: `Rush runs pnpm without workspaces here (${RUSH_PNPM_CONFIG_JSON} has no "useWorkspaces": true): its lockfile has one importer, common/temp, reaching every project as a @rush-temp tarball, so per-project slices (lockguard key --projects, verify's slice lines) name common/temp only; snapshot and verify key on the whole lockfile as everywhere`,
    fix: `Set "useWorkspaces": true in ${RUSH_PNPM_CONFIG_JSON}, then rush update.`,
  };
}
