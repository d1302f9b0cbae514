// Sound keys for turbo 2: every cached task's `inputs` name the project's `.lockguard-slice`, and the proof
// from turbo's own dry run that they do.
//
// Owns: `turboEdits` (the root turbo.json / turbo.jsonc and every package-level one that `extends` it:
// a task with `inputs` gets `.lockguard-slice` appended; a task without gets `["$TURBO_DEFAULT$",
// ".lockguard-slice"]`, the default it had plus the file; a package task without `inputs` that the root
// defines inherits the root's, so it is left alone; a task with `cache: false` never restores an output,
// so it is left alone too; committed mode: no entry where the task's inputs hold `$TURBO_DEFAULT$` or are
// absent, which hash committed files, and lockguard's own earlier entry taken back there), and `turboProof` (`turbo run <every task> --dry=json`: `tasks[].inputs` lists the
// files each task's hash folds, by path relative to its package).
// Measured (turbo 2.11.11): a gitignored file named in `inputs` is hashed; `$TURBO_DEFAULT$` alone skips it,
// and takes a committed one in (the dry run's `tasks[].inputs` lists it);
// a package turbo.json's `inputs` replace the root's.
// Invariants: edits only insert (jsonc.ts), so comments and formatting stay; a file that is not JSONC is
// ERR_LOCKGUARD_BAD_CONFIG and nothing is written; the proof never writes and spawns turbo once.

import type { Env } from '../../../core/env.js';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isLockguardError } from '../../../core/errors.js';
import { runDry } from '../../plan/spawn-runner.js';
import {
  addProperty,
  appendItem,
  applyEdits,
  isString,
  prop,
  removeItem,
  removeProperty,
  type JsonNode,
  type TextEdit,
} from '../../sound-keys/jsonc.js';
import { configFilesUnder, fileIn } from '../../sound-keys/files.js';
import { type Findings, findingsOf, soundCheckOf, type TaskFold } from '../../sound-keys/findings.js';
import { type FileEdit, parseConfig, SLICE_FILE, type SoundCheck, type SoundKeysMode } from '../../sound-keys/types.js';
import { readConfigText } from '../../../core/bounded-read.js';

const TURBO_FILES = ['turbo.json', 'turbo.jsonc'];

/** The turbo config file in `dir`, if any (turbo.json first, as turbo reads it). */
export function turboFileIn(dir: string): string | undefined {
  return fileIn(dir, TURBO_FILES);
}

/** The task name a key of `tasks` defines (`build`, `web#build` → `build`, `//#lint` → `lint`). */
function taskName(key: string): string {
  return key.includes('#') ? key.slice(key.indexOf('#') + 1) : key;
}

const TURBO_DEFAULT = '$TURBO_DEFAULT$';
/** What init wrote for a task that had no `inputs`. */
const INIT_PAIR = [TURBO_DEFAULT, SLICE_FILE];

/** Committed mode's edits of one task: take back the `inputs` entry init added (the whole pair where it wrote one). */
function unfoldTask(
  key: string,
  task: JsonNode & { kind: 'object' },
  inherited: ReadonlySet<string> | undefined,
): { edit: TextEdit; added: string } | undefined {
  let index = -1;
  task.props.forEach((entry, i) => {
    if (entry.key === 'inputs') index = i;
  });
  const inputs = task.props[index]?.value;
  if (inputs?.kind !== 'array') return undefined;
  const at = inputs.items.findIndex((item) => isString(item, SLICE_FILE));
  if (at === -1) return undefined;
  // The pair init wrote where a task had none (a package task the root defines inherits the root's inputs instead: keep its own).
  const pair =
    inputs.items.length === INIT_PAIR.length &&
    inputs.items.every((item, i) => isString(item, INIT_PAIR[i] ?? '')) &&
    inherited?.has(taskName(key)) !== true;
  return pair
    ? {
        edit: removeProperty(task, index),
        added: `tasks.${key}.inputs removed (lockguard added it; committed files are in turbo's default inputs)`,
      }
    : { edit: removeItem(inputs, at), added: `tasks.${key}.inputs - "${SLICE_FILE}" (committed files need no entry)` };
}

/** The edits of one turbo config's `tasks`; `inherited`: task names the root defines (a package file only). */
function editTasks(
  text: string,
  tree: JsonNode,
  inherited: ReadonlySet<string> | undefined,
  mode: SoundKeysMode,
): { edits: TextEdit[]; added: string[] } {
  const tasks = prop(tree, 'tasks');
  const edits: TextEdit[] = [];
  const added: string[] = [];
  if (tasks?.kind !== 'object') return { edits, added };
  for (const { key, value } of tasks.props) {
    if (value.kind !== 'object') continue;
    const cache = prop(value, 'cache');
    if (cache?.kind === 'literal' && cache.value === false) continue;
    const inputs = prop(value, 'inputs');
    // Committed files are in `$TURBO_DEFAULT$` (a task without inputs has it): there the entry is taken back;
    // a task whose inputs leave the default out still needs the file named, as in ignored mode.
    const defaults =
      inputs === undefined || (inputs.kind === 'array' && inputs.items.some((item) => isString(item, TURBO_DEFAULT)));
    if (mode === 'committed' && defaults) {
      const undo = unfoldTask(key, value, inherited);
      if (undo !== undefined) {
        edits.push(undo.edit);
        added.push(undo.added);
      }
      continue;
    }
    if (inputs === undefined) {
      if (inherited?.has(taskName(key)) === true) continue;
      edits.push(addProperty(text, value, 'inputs', `["$TURBO_DEFAULT$", "${SLICE_FILE}"]`));
      added.push(
        `tasks.${key}.inputs = ["$TURBO_DEFAULT$", "${SLICE_FILE}"] (it had none: turbo's default, plus the slice file)`,
      );
    } else if (inputs.kind === 'array' && !inputs.items.some((item) => isString(item, SLICE_FILE))) {
      edits.push(appendItem(text, inputs, JSON.stringify(SLICE_FILE)));
      added.push(`tasks.${key}.inputs + "${SLICE_FILE}"`);
    }
  }
  return { edits, added };
}

/**
 * What `init --sound-keys` changes in the workspace's turbo config files (none: already set up, or no turbo);
 * `committed`: the entry taken back wherever the task's inputs are turbo's default (`$TURBO_DEFAULT$` hashes
 * committed files), kept or added where its inputs leave the default out (measured, turbo 2.11.11).
 */
export function turboEdits(root: string, mode: SoundKeysMode = 'ignored'): FileEdit[] {
  const rootFile = turboFileIn(root);
  if (rootFile === undefined) return [];
  const rootText = readConfigText(rootFile, root) ?? '';
  const rootTree = parseConfig(rootText, rootFile, 'turbo.json (JSONC)');
  const rootTasks = prop(rootTree, 'tasks');
  const defined = new Set(rootTasks?.kind === 'object' ? rootTasks.props.map((entry) => taskName(entry.key)) : []);
  const out: FileEdit[] = [];
  const own = editTasks(rootText, rootTree, undefined, mode);
  if (own.edits.length > 0)
    out.push({ file: relative(root, rootFile), text: applyEdits(rootText, own.edits), added: own.added });
  for (const file of configFilesUnder(root, TURBO_FILES, { withPackageJson: true })) {
    const text = readConfigText(file, root) ?? '';
    const tree = parseConfig(text, file, 'turbo.json (JSONC)');
    if (prop(tree, 'extends') === undefined) continue;
    const edit = editTasks(text, tree, defined, mode);
    if (edit.edits.length > 0)
      out.push({ file: relative(root, file), text: applyEdits(text, edit.edits), added: edit.added });
  }
  return out;
}

interface DryTask {
  readonly taskId?: unknown;
  readonly command?: unknown;
  readonly directory?: unknown;
  readonly inputs?: unknown;
  readonly resolvedTaskDefinition?: { readonly cache?: unknown; readonly inputs?: unknown };
}

/** Every cached task name the root turbo config defines (what the dry run is asked for); throws ERR_LOCKGUARD_BAD_CONFIG. */
function definedTasks(root: string): string[] {
  const file = turboFileIn(root);
  if (file === undefined) return [];
  const tasks = prop(parseConfig(readConfigText(file, root) ?? '', file, 'turbo.json (JSONC)'), 'tasks');
  if (tasks?.kind !== 'object') return [];
  const cached = tasks.props.filter(({ value }) => {
    const cache = prop(value, 'cache');
    return !(cache?.kind === 'literal' && cache.value === false);
  });
  return [...new Set(cached.map((entry) => taskName(entry.key)))].filter((name) => name !== '');
}

/** Every cached task of turbo's dry-run JSON, and whether it folds its package's slice file (hashed, or named while not written yet). */
export function turboFolds(json: string, root: string): TaskFold[] {
  const parsed = JSON.parse(json.slice(json.indexOf('{'))) as { tasks?: unknown };
  const tasks = Array.isArray(parsed.tasks) ? (parsed.tasks as DryTask[]) : [];
  return (
    tasks
      // A task whose package has no such script runs nothing and restores nothing.
      .filter((task) => task.resolvedTaskDefinition?.cache !== false && task.command !== '<NONEXISTENT>')
      .map((task) => {
        const directory =
          typeof task.directory === 'string' && task.directory !== '' && task.directory !== '.' ? task.directory : '';
        const file = directory === '' ? SLICE_FILE : `${directory}/${SLICE_FILE}`;
        const hashed =
          task.inputs !== null && typeof task.inputs === 'object' && Object.hasOwn(task.inputs, SLICE_FILE);
        const named =
          Array.isArray(task.resolvedTaskDefinition?.inputs) && task.resolvedTaskDefinition.inputs.includes(SLICE_FILE);
        return { id: String(task.taskId), file, folds: hashed || (named && !existsSync(join(root, file))) };
      })
  );
}

/** doctor's proof for turbo, from its own dry run over every task turbo.json defines; undefined where turbo defines none. */
export async function turboProof(root: string, env: Env, mode?: SoundKeysMode): Promise<SoundCheck | undefined> {
  let names: string[];
  let json: string;
  try {
    names = definedTasks(root);
    if (names.length === 0) return undefined;
    json = await runDry(['turbo', 'run', ...names, '--dry=json'], { root, env });
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    const fix =
      error.code === 'ERR_LOCKGUARD_PLAN'
        ? 'Install the workspace (turbo as a root devDependency), then run lockguard doctor again.'
        : (error.hint ?? 'Fix turbo.json.');
    return {
      runner: 'turbo',
      level: 'warn',
      detail: `cannot prove turbo's keys fold ${SLICE_FILE}: ${error.message}`,
      fix,
    };
  }
  let found: Findings;
  try {
    found = findingsOf(turboFolds(json, root), root);
  } catch {
    return {
      runner: 'turbo',
      level: 'warn',
      detail: "cannot prove turbo's keys fold the slice files: its dry run did not print JSON",
      fix: `Run turbo run ${names.join(' ')} --dry=json yourself to see what it prints.`,
    };
  }
  return soundCheckOf('turbo', found, mode);
}
