// turbo's own per-package keys on the real histories (issue 29; reach.bench.ts reports them): each revision's
// workspace rebuilt from its lockfile alone, then the pinned turbo's `turbo run build --dry=json`.
//
// Owns: `importerManifests` (per importer: its dependency sections and specifiers, from the lockfile's
// `importers:`; a name from how its dependents link it, else one made from its path), `writeWorkspace`
// (root package.json with `packageManager`, pnpm-workspace.yaml with every importer and the catalogs, a
// package.json per importer with a `build` script, turbo.json with a `build` task, the lockfile's main
// document) and `turboHashes` (per importer: `hashOfExternalDependencies` and the task hash). The task has no
// `dependsOn: ["^build"]` (vue-core's workspace has a cycle, vue <-> @vue/server-renderer, that turbo
// refuses); reach.bench.ts composes `^build` itself: a task key moves when its own or a workspace
// dependency's (transitively) moves.
// turbo needs no install for a dry run (measured: no node_modules, no git; it hashes the files it finds).
// Invariants: writes only under the folder it is given; turbo runs with HOME and the cache dirs inside it,
// telemetry and the daemon off.

import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspaceNames } from './reach-design-b.js';

const TURBO = fileURLToPath(new URL('../../../node_modules/.bin/turbo', import.meta.url));
const SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;
type Section = (typeof SECTIONS)[number];

/** One importer as a package.json would declare it. */
export interface ImporterManifest {
  readonly id: string;
  readonly name: string;
  readonly sections: Partial<Record<Section, Record<string, string>>>;
}

const unquote = (text: string): string => text.trim().replace(/^(['"])(.*)\1$/, '$2');

/** Every importer of a lockfile's main document, with its specifiers per section. */
export function importerManifests(lockfileMain: string): ImporterManifest[] {
  const start = lockfileMain.indexOf('\nimporters:');
  const end = lockfileMain.indexOf('\npackages:');
  const raw = new Map<string, Partial<Record<Section, Record<string, string>>>>();
  let importer: string | undefined;
  let section: Section | undefined;
  let dep: string | undefined;
  for (const line of lockfileMain.slice(start, end === -1 ? undefined : end).split('\n')) {
    const match = /^( *)('[^']*'|"[^"]*"|[^\s:][^:]*?):(?: (.*))?$/.exec(line);
    if (match === null) continue;
    const [, indent, key, value] = match;
    const name = unquote(key as string);
    if (indent === '  ') {
      importer = name;
      raw.set(importer, {});
    } else if (indent === '    ')
      section = (SECTIONS as readonly string[]).includes(name) ? (name as Section) : undefined;
    else if (indent === '      ') dep = name;
    else if (indent === '        ' && name === 'specifier' && importer && section && dep) {
      const sections = raw.get(importer) as Partial<Record<Section, Record<string, string>>>;
      sections[section] = { ...sections[section], [dep]: unquote(value ?? '') };
    }
  }
  const linked = new Map([...workspaceNames(lockfileMain)].map(([name, id]) => [id, name]));
  return [...raw].map(([id, sections]) => ({
    id,
    name: id === '.' ? 'history-root' : (linked.get(id) ?? `history-${id.replace(/[^a-z0-9]+/gi, '-')}`),
    sections,
  }));
}

/** The `catalogs:` block of the lockfile, as pnpm-workspace.yaml's `catalogs:` (specifiers only). */
function catalogsYaml(lockfileMain: string): string {
  const start = lockfileMain.indexOf('\ncatalogs:');
  if (start === -1) return '';
  const block = lockfileMain.slice(start + 1, lockfileMain.indexOf('\nimporters:'));
  return `${block
    .split('\n')
    .filter((line) => !/^ {6}version:/.test(line))
    .map((line) => line.replace(/^( {6})specifier: /, '$1'))
    .join('\n')
    .replace(/^( {4}[^\n]+:)\n( {6})(.*)$/gm, '$1 $3')}\n`;
}

/** Write one revision's workspace into `dir` (emptied first). */
export function writeWorkspace(dir: string, lockfileMain: string): ImporterManifest[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const manifests = importerManifests(lockfileMain);
  for (const manifest of manifests) {
    const folder = join(dir, manifest.id);
    mkdirSync(folder, { recursive: true });
    const json: Record<string, unknown> = {
      name: manifest.name,
      version: '0.0.0',
      private: true,
      ...manifest.sections,
    };
    json.scripts = { build: 'true' };
    if (manifest.id === '.') json.packageManager = 'pnpm@10.34.9';
    writeFileSync(join(folder, 'package.json'), `${JSON.stringify(json, null, 2)}\n`);
  }
  const packages = manifests.filter((m) => m.id !== '.').map((m) => `  - '${posix.normalize(m.id)}'`);
  writeFileSync(join(dir, 'pnpm-workspace.yaml'), `packages:\n${packages.join('\n')}\n${catalogsYaml(lockfileMain)}`);
  writeFileSync(join(dir, 'pnpm-lock.yaml'), lockfileMain);
  writeFileSync(join(dir, 'turbo.json'), JSON.stringify({ tasks: { build: {} } }));
  return manifests;
}

/** Per importer id: turbo's hashOfExternalDependencies and the build task's hash (`--dry=json`). */
export function turboHashes(dir: string, home: string): Map<string, { external: string; task: string }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TURBO_TELEMETRY_DISABLED: '1',
    DO_NOT_TRACK: '1',
    TURBO_NO_UPDATE_NOTIFIER: '1',
  };
  const result = spawnSync(TURBO, ['run', 'build', '--dry=json'], {
    cwd: dir,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (result.status !== 0) throw new Error(`turbo --dry=json in ${dir}: rc ${result.status}\n${result.stderr}`);
  const dry = JSON.parse(result.stdout) as {
    tasks: { directory: string; hash: string; hashOfExternalDependencies: string }[];
  };
  const out = new Map<string, { external: string; task: string }>();
  for (const task of dry.tasks) {
    const id = task.directory === '' ? '.' : task.directory;
    out.set(id, { external: task.hashOfExternalDependencies, task: task.hash });
  }
  return out;
}
