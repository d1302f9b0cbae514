// Sound keys for lage 2.17.0: each cached target folds its package's `.lockguard-slice`, in committed mode only.
//
// lage hashes a target's `inputs` (default `**/*`, matched with dot files) among the files git lists for the
// package: tracked ones, and untracked ones git does not ignore (its PackageTree runs `git ls-files` and `git
// ls-files -o --exclude-standard`). Measured (test/e2e/lage-sound-keys.test.ts and by hand): a gitignored
// `.lockguard-slice` never changes a lage key, whatever `inputs` say; a committed one does. So:
// - ignored mode cannot be set up for lage: `lageEdits` refuses (ERR_LOCKGUARD_BAD_CONFIG, nothing written)
//   with the fix (`--sound-keys=committed`, or `--no-sound-keys`);
// - committed mode: a target without `inputs` folds the file already; a literal `inputs: [...]` array of
//   strings in the config that leaves it out gets `'.lockguard-slice'` appended (every other byte kept);
//   an `inputs` that is not such a literal (a variable, a spread, a call: a JS config is code) refuses with the
//   exact edit to make by hand.
// doctor's proof (`lageProof`) asks lage itself: `lage info <tasks> --reporter json` lists every target with
// its resolved `inputs`; a target folds its file when those globs take it in, and (ignored mode) never.
// Owns: `lageEdits`, `lageFolds`, `lageProof`, and the small scanner of the config's text (js-literals.ts).
// Invariants: edits only insert; never evaluates the config (lage does, in its own process, for the proof).

import { join } from 'node:path';
import { LockguardError } from '../../../core/errors.js';
import { runDry } from '../../plan/spawn-runner.js';
import { findingsOf, soundCheckOf, type TaskFold } from '../../sound-keys/findings.js';
import { foldsPath } from '../../sound-keys/globs.js';
import { type FileEdit, SLICE_FILE, type SoundCheck, type SoundKeysMode } from '../../sound-keys/types.js';
import type { Env } from '../adapter.js';
import { lageConfigText, lageConfigured } from './config.js';
import { type InputsArray, inputsArrays, pipelineKeys } from './js-literals.js';

const IGNORED_WHY =
  'lage hashes only the files git lists (tracked, or untracked and not ignored), so a gitignored .lockguard-slice never reaches its keys';

/** Why lage's keys cannot fold the slice files in `mode` (ignored: lage never hashes a gitignored file). */
export function lageUnsupported(root: string, mode: SoundKeysMode): string | undefined {
  return mode === 'ignored' && lageConfigured(root) ? IGNORED_WHY : undefined;
}

function refuse(path: string, message: string, hint: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BAD_CONFIG', message, { path, hint });
}

/** The text with `'.lockguard-slice'` appended to one literal array (in its quote style, before its `]`). */
function appendTo(text: string, array: InputsArray): string {
  const quote = array.quote;
  const item = `${quote}${SLICE_FILE}${quote}`;
  const inner = text.slice(array.open + 1, array.close);
  const trimmed = inner.trimEnd();
  if (trimmed === '') return `${text.slice(0, array.open + 1)}${item}${text.slice(array.close)}`;
  const at = array.open + 1 + trimmed.length;
  if (inner.includes('\n')) {
    // One item per line: a new line at the last item's indent.
    const lastLine = inner.slice(0, trimmed.length).split('\n').at(-1) ?? '';
    const indent = /^\s*/.exec(lastLine)?.[0] ?? '';
    return `${text.slice(0, at)}${trimmed.endsWith(',') ? '' : ','}\n${indent}${item},${text.slice(at)}`;
  }
  return `${text.slice(0, at)}${trimmed.endsWith(',') ? ' ' : ', '}${item}${text.slice(at)}`;
}

export function lageEdits(root: string, mode: SoundKeysMode): FileEdit[] {
  // Asked for every workspace (sound-keys/index.ts asks every runner): nothing where lage is not configured.
  if (!lageConfigured(root)) return [];
  const config = lageConfigText(root);
  const file = config?.file.file ?? 'lage.config.js';
  if (mode === 'ignored')
    throw refuse(
      join(root, file),
      `Cannot set up sound keys for lage ("${join(root, file)}") in ignored mode: ${IGNORED_WHY}.`,
      'Use lockguard init --sound-keys=committed (the files are committed with each lockfile change and lage hashes them), or --no-sound-keys.',
    );
  if (config === undefined) return [];
  if (config.file.file === 'package.json' || !config.file.code)
    throw refuse(
      join(root, file),
      `lockguard edits lage's inputs only in a lage.config.js, not in "${join(root, file)}".`,
      `Where a target's "inputs" leave it out, add "${SLICE_FILE}" to them by hand; targets without "inputs" fold it already (committed).`,
    );
  const arrays = inputsArrays(config.text);
  const opaque = arrays.find((array) => !array.literal);
  if (opaque !== undefined)
    throw refuse(
      join(root, file),
      `An "inputs" in "${join(root, file)}" (line ${opaque.line}) is not a literal array of strings, so lockguard cannot edit it safely (a JS config is code).`,
      `Add '${SLICE_FILE}' to that inputs list by hand (e.g. inputs: [...yours, '${SLICE_FILE}']), then run lockguard init --sound-keys=committed again.`,
    );
  const missing = arrays.filter((array) => !foldsPath(array.items, SLICE_FILE));
  if (missing.length === 0) return [];
  // Back to front, so earlier offsets stay valid.
  let text = config.text;
  for (const array of [...missing].sort((a, b) => b.open - a.open)) text = appendTo(text, array);
  return [
    {
      file,
      text,
      added: missing.map((array) => `inputs (line ${array.line}): + '${SLICE_FILE}'`),
    },
  ];
}

interface PackageTask {
  readonly id: string;
  readonly package?: string;
  readonly workingDirectory?: string;
  readonly command?: readonly string[];
  readonly inputs?: readonly string[];
}

/** The targets `lage info` lists for the pipeline's tasks (its JSON reporter's one line). */
async function infoTasks(root: string, env: Env, tasks: readonly string[]): Promise<PackageTask[]> {
  const out = await runDry(['lage', 'info', ...tasks, '--reporter', 'json'], { root, env });
  const line = out.split('\n').find((text) => text.includes('"packageTasks"'));
  const parsed = JSON.parse(line ?? '{}') as { data?: { packageTasks?: PackageTask[] } };
  return (parsed.data?.packageTasks ?? []).filter(
    (task) => task.id !== '__start' && task.package !== '' && (task.command?.length ?? 0) > 0,
  );
}

/** Each target lage would run for the config's pipeline and whether its inputs take its package's file in. */
export async function lageFolds(root: string, env: Env, mode: SoundKeysMode | undefined): Promise<TaskFold[]> {
  const config = lageConfigText(root);
  const tasks = [...new Set(pipelineKeys(config?.text ?? '').map((key) => key.slice(key.indexOf('#') + 1)))];
  if (tasks.length === 0) return [];
  return (await infoTasks(root, env, tasks)).map((task) => {
    const dir = task.workingDirectory ?? '';
    return {
      id: task.id,
      file: dir === '' ? SLICE_FILE : `${dir}/${SLICE_FILE}`,
      folds: mode !== 'ignored' && foldsPath(task.inputs ?? ['**/*'], SLICE_FILE),
    };
  });
}

/** doctor's finding over every target of lage's pipeline; undefined where lage is not configured. */
export async function lageProof(
  root: string,
  env: Env,
  mode: SoundKeysMode | undefined,
): Promise<SoundCheck | undefined> {
  if (!lageConfigured(root)) return undefined;
  if (mode === 'ignored')
    return {
      runner: 'lage',
      level: 'fail',
      detail: `the slice files are gitignored here, and ${IGNORED_WHY}`,
      fix: 'lockguard init --sound-keys=committed',
    };
  let folds: TaskFold[];
  try {
    folds = await lageFolds(root, env, mode);
  } catch (error) {
    return {
      runner: 'lage',
      level: 'warn',
      detail: `cannot prove lage's keys fold ${SLICE_FILE}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const check = soundCheckOf('lage', findingsOf(folds, root), mode);
  return { ...check, detail: check.detail.replaceAll('cached lage tasks', 'lage targets') };
}
