// Sound keys for nx: nx hashes each project's `.lockguard-slice`, and the proof from nx's own task plans.
//
// Owns: `nxEdits` (`.nxignore` gets `!**/.lockguard-slice`: nx skips gitignored files, measured with nx
// 24.0.6; committed mode takes lockguard's line back, a committed file is hashed; a target in nx.json `targetDefaults` or a project.json whose `inputs` leave the project root's file
// out gets `"{projectRoot}/.lockguard-slice"` appended; `namedInputs.default`, which every target without
// `inputs` uses, gets it when it leaves it out; nx's implicit default `{projectRoot}/**/*` already takes it
// in; a target with `cache: false` never restores, so it is left alone), and `nxProof` (nx 22 and newer, the nx the commands start, Lerna's own too: the task
// plans `nx run-many -t <every cached target> --graph=stdout` prints (`taskPlans`: per task, per project,
// the globs it hashes), then one `nx show target inputs <task> --json` to see that nx really hashes a
// written slice file: the globs do not say what nx ignores).
// Measured: `{ "runtime": "… {projectName}" }` is not interpolated and `{ "env": … }` is one value for every
// project, so neither can fold a project's slice: only the file serves.
// Invariants: edits only insert (jsonc.ts); a file that is not JSONC is ERR_LOCKGUARD_BAD_CONFIG and
// nothing is written; the proof never writes and spawns nx three times at most.

import type { Env } from '../../../core/env.js';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isLockguardError } from '../../../core/errors.js';
import { runDry } from '../../plan/spawn-runner.js';
import { type NxAt, nxCommand, whichNx } from './which.js';
import { configFilesUnder } from '../../sound-keys/files.js';
import { type Findings, findingsOf, soundCheckOf, type TaskFold } from '../../sound-keys/findings.js';
import { foldsPath } from '../../sound-keys/globs.js';
import { appendItem, applyEdits, isString, type JsonNode, prop, type TextEdit } from '../../sound-keys/jsonc.js';
import { ignoreFileEdit, type IgnoreLine } from '../../sound-keys/ignore-lines.js';
import {
  type FileEdit,
  parseConfig,
  SLICE_FILE,
  type SoundCheck,
  soundKeysFix,
  type SoundKeysMode,
} from '../../sound-keys/types.js';
import { readConfigText } from '../../../core/bounded-read.js';

/** The `.nxignore` line that makes nx hash the gitignored slice files. */
const NXIGNORE_LINE = `!**/${SLICE_FILE}`;
/** The input init appends where a target's inputs leave the file out. */
const NX_INPUT = `{projectRoot}/${SLICE_FILE}`;
/** What nx uses for `default` when nx.json does not define it. */
const IMPLICIT_DEFAULT = ['{projectRoot}/**/*'];

/** The project-relative globs (`!` for excludes) an inputs list takes in from its own project. */
function ownGlobs(list: JsonNode, named: ReadonlyMap<string, JsonNode>, seen: ReadonlySet<string>): string[] {
  if (list.kind !== 'array') return [];
  const out: string[] = [];
  const fileset = (raw: string): void => {
    const negated = raw.startsWith('!');
    const glob = negated ? raw.slice(1) : raw;
    if (glob.startsWith('{workspaceRoot}')) return;
    const relativeGlob = glob === '{projectRoot}' ? '' : glob.replace(/^\{projectRoot\}\//, '');
    out.push(`${negated ? '!' : ''}${relativeGlob}`);
  };
  const namedInput = (name: string): void => {
    if (seen.has(name)) return;
    const definition = named.get(name);
    if (definition !== undefined) out.push(...ownGlobs(definition, named, new Set([...seen, name])));
    else if (name === 'default') out.push(...IMPLICIT_DEFAULT.map((glob) => glob.replace('{projectRoot}/', '')));
  };
  for (const item of list.items) {
    if (item.kind === 'string') {
      if (item.value.startsWith('^')) continue;
      if (named.has(item.value) || item.value === 'default') namedInput(item.value);
      else fileset(item.value);
    } else if (item.kind === 'object') {
      const set = prop(item, 'fileset');
      const input = prop(item, 'input');
      if (set?.kind === 'string') fileset(set.value);
      else if (
        input?.kind === 'string' &&
        prop(item, 'projects') === undefined &&
        prop(item, 'dependencies') === undefined
      )
        namedInput(input.value);
    }
  }
  return out;
}

function takesSlice(list: JsonNode, named: ReadonlyMap<string, JsonNode>): boolean {
  return (
    (list.kind === 'array' && list.items.some((item) => isString(item, NX_INPUT))) ||
    foldsPath(ownGlobs(list, named, new Set()), SLICE_FILE)
  );
}

/** Edits to the targets of one `targetDefaults` or project.json `targets` object (a target without `inputs` uses `default`). */
function editTargets(
  text: string,
  targets: JsonNode | undefined,
  where: string,
  named: ReadonlyMap<string, JsonNode>,
): { edits: TextEdit[]; added: string[] } {
  const edits: TextEdit[] = [];
  const added: string[] = [];
  if (targets?.kind !== 'object') return { edits, added };
  for (const { key, value } of targets.props) {
    if (value.kind !== 'object') continue;
    const cache = prop(value, 'cache');
    if (cache?.kind === 'literal' && cache.value === false) continue;
    const inputs = prop(value, 'inputs');
    if (inputs?.kind === 'array' && !takesSlice(inputs, named)) {
      edits.push(appendItem(text, inputs, JSON.stringify(NX_INPUT)));
      added.push(`${where}.${key}.inputs + "${NX_INPUT}" (its inputs leave the project root's file out)`);
    }
  }
  return { edits, added };
}

function namedInputsOf(tree: JsonNode): Map<string, JsonNode> {
  const named = prop(tree, 'namedInputs');
  return new Map(named?.kind === 'object' ? named.props.map((entry) => [entry.key, entry.value] as const) : []);
}

/** Whether nx is set up at `root` (nx.json, or nx in the root package.json). */
export function nxConfigured(root: string): boolean {
  if (existsSync(join(root, 'nx.json'))) return true;
  try {
    const manifest = JSON.parse(readConfigText(join(root, 'package.json')) ?? '') as Record<
      string,
      Record<string, unknown> | undefined
    >;
    return (
      ['devDependencies', 'dependencies'].some((field) => manifest[field]?.['nx'] !== undefined) ||
      manifest['nx'] !== undefined
    );
  } catch {
    return false;
  }
}

const NXIGNORE: IgnoreLine = {
  line: NXIGNORE_LINE,
  matches: new Set([NXIGNORE_LINE]),
  comment: "# lockguard's per-project slice files: gitignored, yet nx must hash them (lockguard init --sound-keys)",
  added: '(nx skips gitignored files unless un-ignored here)',
  removed: 'removed (committed files are hashed without it)',
};

/**
 * What `init --sound-keys` changes for nx (none: already set up, or no nx). Both modes: targets whose inputs
 * leave the project root out get the file; `committed` takes `.nxignore`'s line back (a committed file is hashed).
 */
export function nxEdits(root: string, mode: SoundKeysMode = 'ignored'): FileEdit[] {
  if (!nxConfigured(root)) return [];
  const out: FileEdit[] = [];
  const ignore = ignoreFileEdit(root, '.nxignore', NXIGNORE, mode === 'ignored');
  if (ignore !== undefined) out.push(ignore);
  const nxPath = join(root, 'nx.json');
  const nxText = existsSync(nxPath) ? (readConfigText(nxPath, root) ?? '') : undefined;
  const nxTree = nxText === undefined ? undefined : parseConfig(nxText, nxPath, 'nx.json (JSON with comments)');
  const named = nxTree === undefined ? new Map<string, JsonNode>() : namedInputsOf(nxTree);
  const defaults = nxTree === undefined ? undefined : prop(nxTree, 'targetDefaults');
  const rootEdits: TextEdit[] = [];
  const rootAdded: string[] = [];
  if (nxText !== undefined) {
    const own = editTargets(nxText, defaults, 'targetDefaults', named);
    rootEdits.push(...own.edits);
    rootAdded.push(...own.added);
  }
  const projectEdits: FileEdit[] = [];
  for (const file of configFilesUnder(root, ['project.json'], { withPackageJson: false })) {
    const text = readConfigText(file, root) ?? '';
    const tree = parseConfig(text, file, 'project.json (JSON with comments)');
    const edit = editTargets(text, prop(tree, 'targets'), 'targets', new Map([...named, ...namedInputsOf(tree)]));
    if (edit.edits.length > 0)
      projectEdits.push({ file: relative(root, file), text: applyEdits(text, edit.edits), added: edit.added });
  }
  // Every target without inputs (and those nx infers from package.json scripts) uses `default`.
  const defaultInput = named.get('default');
  if (nxText !== undefined && defaultInput?.kind === 'array' && !takesSlice(defaultInput, named)) {
    rootEdits.push(appendItem(nxText, defaultInput, JSON.stringify(NX_INPUT)));
    rootAdded.push(
      `namedInputs.default + "${NX_INPUT}" (targets without inputs use it, and it leaves the project root's file out)`,
    );
  }
  if (nxText !== undefined && rootEdits.length > 0)
    out.push({ file: 'nx.json', text: applyEdits(nxText, rootEdits), added: rootAdded });
  return [...out, ...projectEdits];
}

interface NxTaskPlan {
  readonly graph?: {
    readonly nodes?: Record<
      string,
      { readonly data?: { readonly root?: unknown; readonly targets?: Record<string, { readonly cache?: unknown }> } }
    >;
  };
  readonly tasks?: {
    readonly tasks?: Record<
      string,
      { readonly target?: { readonly project?: unknown }; readonly projectRoot?: unknown; readonly cache?: unknown }
    >;
  };
  readonly taskPlans?: Record<string, unknown>;
}

function parseNx(json: string): NxTaskPlan {
  return JSON.parse(json.slice(json.indexOf('{'))) as NxTaskPlan;
}

/** Every cached task of nx's `--graph=stdout` plan, and whether its plan's own-project globs take in its slice file. */
export function nxFolds(json: string): TaskFold[] {
  const parsed = parseNx(json);
  return Object.entries(parsed.tasks?.tasks ?? {})
    .filter(([, task]) => task.cache === true)
    .map(([id, task]) => {
      const project = String(task.target?.project ?? '');
      const projectRoot =
        typeof task.projectRoot === 'string' && task.projectRoot !== '' && task.projectRoot !== '.'
          ? task.projectRoot
          : '';
      const file = projectRoot === '' ? SLICE_FILE : `${projectRoot}/${SLICE_FILE}`;
      const plan = Array.isArray(parsed.taskPlans?.[id]) ? (parsed.taskPlans[id] as unknown[]) : [];
      const folds = plan.some(
        (entry) =>
          typeof entry === 'string' &&
          entry.startsWith(`${project}:`) &&
          foldsPath(entry.slice(project.length + 1).split(','), file),
      );
      return { id, file, folds };
    });
}

/** The cached target names of nx's project graph (`nx graph --file=stdout`). */
function cachedTargets(json: string): string[] {
  const names = new Set<string>();
  for (const node of Object.values(parseNx(json).graph?.nodes ?? {}))
    for (const [name, target] of Object.entries(node.data?.targets ?? {})) if (target.cache === true) names.add(name);
  return [...names].sort();
}

/**
 * The first nx whose own output proves the fold: `nx show target inputs` (what nx really hashes) came with nx 22
 * (measured: Lerna 9.0.7's nx 22.7.12 prints the same task plans and `files` as 24.0.6; 22.6.3's CLI has the
 * command too; 20.8.4 and 21.6.11 have the task plans but no `show target`).
 */
const NX_PROVEN_SINCE = 22;

/** The fix where nx's plans name the file but nx skips it (gitignored). */
function unhashedFix(mode: SoundKeysMode | undefined, file: string): string {
  return mode === 'committed'
    ? `${soundKeysFix(mode)} (it takes the .gitignore line back), and remove any other rule that ignores the file (git check-ignore -v ${file})`
    : `${soundKeysFix(mode)} (it adds ${NXIGNORE_LINE} to .nxignore)`;
}

/** A dry run of the nx the commands start (Lerna's own included), through its own CLI. */
function askNx(root: string, nx: NxAt | undefined, given: Env): (...args: string[]) => Promise<string> {
  const command = nxCommand(nx, given);
  const env: Env = { ...given, ...command.env };
  return (...args) => runDry([...command.argv, ...args], { root, env });
}

/** doctor's proof for nx 22 and newer, from its own plans; undefined where nx is not set up or has no cached target. */
export async function nxProof(root: string, env: Env, mode?: SoundKeysMode): Promise<SoundCheck | undefined> {
  if (!nxConfigured(root)) return undefined;
  const nx = whichNx(root);
  const version = nx?.version;
  if (version === undefined) return undefined;
  const ask = askNx(root, nx, env);
  if (Number(version.split('.')[0]) < NX_PROVEN_SINCE) {
    return {
      runner: 'nx',
      level: 'warn',
      detail: `nx ${version}: doctor proves that nx's keys fold ${SLICE_FILE} from the task plans of nx ${NX_PROVEN_SINCE} and newer only`,
      fix: `Check with nx show target inputs <project>:<target> after ${soundKeysFix(mode)}.`,
    };
  }
  const cannot = (error: unknown): SoundCheck => {
    if (!isLockguardError(error) && !(error instanceof SyntaxError)) throw error;
    return {
      runner: 'nx',
      level: 'warn',
      detail: `cannot prove nx's keys fold ${SLICE_FILE}: ${isLockguardError(error) ? error.message : 'nx did not print JSON'}`,
      fix:
        isLockguardError(error) && error.code !== 'ERR_LOCKGUARD_PLAN' && error.hint !== undefined
          ? error.hint
          : 'Install the workspace (nx as a root devDependency), then run lockguard doctor again.',
    };
  };
  let found: Findings;
  let folds: TaskFold[];
  try {
    const targets = cachedTargets(await ask('graph', '--file=stdout'));
    if (targets.length === 0) return undefined;
    folds = nxFolds(await ask('run-many', '-t', targets.join(','), '--graph=stdout'));
    found = findingsOf(folds, root);
  } catch (error) {
    return cannot(error);
  }
  const sample = folds.find((task) => task.folds && existsSync(join(root, task.file)));
  if (found.missing.length === 0 && sample !== undefined) {
    let files: unknown;
    try {
      files = (parseNx(await ask('show', 'target', 'inputs', sample.id, '--json')) as { files?: unknown }).files;
    } catch (error) {
      return cannot(error);
    }
    if (!Array.isArray(files) || !files.includes(sample.file)) {
      return {
        runner: 'nx',
        level: 'fail',
        detail: `nx's plans name ${SLICE_FILE}, but nx does not hash ${sample.file} for ${sample.id}: it skips gitignored files`,
        fix: unhashedFix(mode, sample.file),
      };
    }
  }
  return soundCheckOf('nx', found, mode);
}
