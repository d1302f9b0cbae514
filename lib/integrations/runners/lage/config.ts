// Where a workspace configures lage (2.17.0), read as lage finds it, and what of that config can be read
// without running it.
//
// Owns: `lageConfigFile(root)` (lage's own search, read from its bundled source: `readConfigFile` asks
// cosmiconfig for the module name `lage` in the workspace manager's root only (searchStrategy none): the root
// package.json's `lage` key, `.lagerc`, `.lagerc.{json,yaml,yml,js,ts,cjs,mjs}`, the same under `.config/`
// (`lagerc*`), then `lage.config.{js,ts,cjs,mjs}`; the first found wins), `lageInstalled` (lage named in the
// root manifest's dependencies or devDependencies, or installed in its node_modules) and `lageConfigured`.
// A JS or TS config is code: lockguard never runs it; what it reads of one is its text (`mentions`), and says
// so where that matters (remote.ts, doctor.ts).
// Invariants: read-only; one or two readdirs, an lstat and the root package.json; never throws for an absent or unreadable file.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import { present } from '../workspace-files.js';

/** cosmiconfig's search places for `lage` after package.json, in its order (lage 2.17.0's bundled cosmiconfig). */
const RC_PLACES: readonly string[] = [
  '.lagerc',
  '.lagerc.json',
  '.lagerc.yaml',
  '.lagerc.yml',
  '.lagerc.js',
  '.lagerc.ts',
  '.lagerc.cjs',
  '.lagerc.mjs',
  '.config/lagerc',
  '.config/lagerc.json',
  '.config/lagerc.yaml',
  '.config/lagerc.yml',
  '.config/lagerc.js',
  '.config/lagerc.ts',
  '.config/lagerc.cjs',
  '.config/lagerc.mjs',
  'lage.config.js',
  'lage.config.ts',
  'lage.config.cjs',
  'lage.config.mjs',
];

/** The file lage reads its config from, relative to the root, and whether it is code (JS/TS) or data. */
export interface LageConfigFile {
  readonly file: string;
  readonly code: boolean;
}

/** The root package.json as an object, or undefined (absent, unreadable, not a JSON object). */
function rootManifest(root: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readConfigText(join(root, 'package.json')) ?? 'null');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const CONFIG_DIR = '.config/';

/** The names in `dir` (empty where it cannot be listed: absent, not a folder, no permission). */
function namesIn(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir));
  } catch {
    return new Set();
  }
}

/** The config file lage 2.17.0 would load at `root`, or undefined (lage then runs with its defaults). */
export function lageConfigFile(root: string, manifest = rootManifest(root)): LageConfigFile | undefined {
  const key = manifest?.['lage'];
  if (key !== undefined && key !== null) return { file: 'package.json', code: false };
  // One readdir of the root (and of .config/ where it is there) instead of an lstat per place: this is asked
  // on every guarded run, and most workspaces have no lage config at all.
  const rootNames = namesIn(root);
  const configNames = rootNames.has('.config') ? namesIn(join(root, '.config')) : new Set<string>();
  const file = RC_PLACES.find((place) =>
    place.startsWith(CONFIG_DIR) ? configNames.has(place.slice(CONFIG_DIR.length)) : rootNames.has(place),
  );
  if (file === undefined) return undefined;
  return { file, code: /\.(c|m)?[jt]s$/.test(file) };
}

/** lage named in the root manifest's dependencies or devDependencies, or installed at the root. */
function lageInstalled(root: string, manifest = rootManifest(root)): boolean {
  for (const field of ['devDependencies', 'dependencies']) {
    const deps = manifest?.[field];
    if (deps !== null && typeof deps === 'object' && 'lage' in deps) return true;
  }
  return present(join(root, 'node_modules', 'lage'));
}

/** A lage config file at the root, or lage in the root's dependencies. */
export function lageConfigured(root: string): boolean {
  const manifest = rootManifest(root);
  return lageConfigFile(root, manifest) !== undefined || lageInstalled(root, manifest);
}

/** The config's text (package.json: its `lage` value as JSON), or undefined when absent or unreadable. */
export function lageConfigText(root: string): { file: LageConfigFile; text: string } | undefined {
  const manifest = rootManifest(root);
  const file = lageConfigFile(root, manifest);
  if (file === undefined) return undefined;
  if (file.file === 'package.json') return { file, text: JSON.stringify(manifest?.['lage']) };
  try {
    const text = readConfigText(join(root, file.file));
    return text === undefined ? undefined : { file, text };
  } catch {
    return undefined;
  }
}
