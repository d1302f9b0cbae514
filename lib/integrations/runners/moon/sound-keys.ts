// Sound keys for moon 2.5.5: every cached task's `inputs` name its project's `.lockguard-slice`, and doctor's
// finding from moon's own view of its tasks.
//
// Owns: `moonEdits` (each YAML task file, task-files.ts: a cached task whose `inputs` list leaves the file out
// gets `'.lockguard-slice'` appended, in the flow list or as one more `- ` line; a task without `inputs` gets
// `inputs: ['**/*', '.lockguard-slice']` in ignored mode and nothing in committed mode; a task whose inputs are
// another shape is ERR_LOCKGUARD_BAD_CONFIG naming the file, the line and the edit to make), `moonFolds` (each
// cached task of `moon query projects` and whether its key takes the file in) and `moonProof` (doctor).
// Measured (moon 2.5.5): a file named in `inputs` is hashed even when gitignored (`inputFiles`); a glob
// (`**/*`, moon's default) leaves gitignored files out, so in ignored mode only a named file folds; a committed
// file is hashed by any glob that matches it. With the file named, a lockfile-only bump rebuilt exactly b
// (test/e2e/moon-sound-keys.test.ts).
// Invariants: edits only insert, so every other byte of each file stays; every file is planned before any is
// written; the proof runs `moon query projects` (no task runs) and never claims a fold moon's output does not show.

import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import type { Env } from '../../../core/env.js';
import { LockguardError } from '../../../core/errors.js';
import { runDry } from '../../plan/spawn-runner.js';
import { findingsOf, soundCheckOf, type TaskFold } from '../../sound-keys/findings.js';
import { foldsPath } from '../../sound-keys/globs.js';
import { type FileEdit, SLICE_FILE, type SoundCheck, type SoundKeysMode } from '../../sound-keys/types.js';
import { moonWorkspaceFile } from './config.js';
import { type MoonTask, moonTaskFiles, namesSliceFile, tasksOf } from './task-files.js';

const QUOTED = `'${SLICE_FILE}'`;

/** The one-line insertion for a task, or undefined when it needs none. */
function taskEdit(lines: string[], task: MoonTask, mode: SoundKeysMode, file: string): boolean {
  const { inputs } = task;
  if (!task.cached) return false;
  if (inputs.kind === 'flow' || inputs.kind === 'block') {
    if (inputs.items.some((item) => namesSliceFile(item, SLICE_FILE))) return false;
    if (inputs.kind === 'flow') {
      const line = lines[inputs.line] ?? '';
      const sep = inputs.items.length === 0 ? '' : ', ';
      lines[inputs.line] = `${line.slice(0, inputs.close)}${sep}${QUOTED}${line.slice(inputs.close)}`;
    } else lines.splice(inputs.last + 1, 0, `${' '.repeat(inputs.indent)}- ${QUOTED}`);
    return true;
  }
  if (inputs.kind === 'none') {
    if (mode === 'committed') return false;
    lines.splice(task.line + 1, 0, `${' '.repeat(task.bodyIndent)}inputs: ['**/*', ${QUOTED}]`);
    return true;
  }
  throw new LockguardError(
    'ERR_LOCKGUARD_BAD_CONFIG',
    `Cannot add ${SLICE_FILE} to the inputs of moon task "${task.id}" in "${file}" (line ${inputs.line + 1}): its inputs are neither a one-line [ ] list nor a block list.`,
    {
      path: file,
      position: { line: inputs.line + 1, column: 1 },
      hint: `Add '${SLICE_FILE}' to that task's inputs yourself, then run lockguard init again (--no-sound-keys sets up the rest).`,
    },
  );
}

export function moonEdits(root: string, mode: SoundKeysMode): FileEdit[] {
  const out: FileEdit[] = [];
  for (const file of moonTaskFiles(root)) {
    const text = readConfigText(join(root, file), root);
    if (text === undefined) continue;
    const lines = text.split('\n');
    const added: string[] = [];
    // Bottom-up, so the line numbers of the tasks above stay valid.
    for (const task of tasksOf(text).reverse())
      if (taskEdit(lines, task, mode, file)) added.unshift(`tasks.${task.id}.inputs: + "${SLICE_FILE}"`);
    if (added.length > 0) out.push({ file, text: lines.join('\n'), added });
  }
  return out;
}

interface QueriedTask {
  readonly target?: unknown;
  readonly inputFiles?: unknown;
  readonly inputGlobs?: unknown;
  readonly options?: { readonly cache?: unknown };
}

const keysOf = (value: unknown): string[] => (value !== null && typeof value === 'object' ? Object.keys(value) : []);

/** Each cached task moon's own project graph shows, and whether its key takes its project's slice file in. */
export async function moonFolds(root: string, env: Env, mode: SoundKeysMode | undefined): Promise<TaskFold[]> {
  const output = await runDry(['moon', 'query', 'projects'], { root, env });
  const parsed = JSON.parse(output) as { projects?: { source?: unknown; tasks?: Record<string, QueriedTask> }[] };
  const folds: TaskFold[] = [];
  for (const project of parsed.projects ?? []) {
    const source = typeof project.source === 'string' ? project.source : '.';
    const file = source === '.' || source === '' ? SLICE_FILE : `${source}/${SLICE_FILE}`;
    for (const [id, task] of Object.entries(project.tasks ?? {})) {
      if (task.options?.cache === false) continue;
      const named = keysOf(task.inputFiles).includes(file);
      // A glob takes a gitignored file in never (measured), a committed one always.
      const globbed = mode === 'committed' && foldsPath(keysOf(task.inputGlobs), file);
      folds.push({ id: typeof task.target === 'string' ? task.target : id, file, folds: named || globbed });
    }
  }
  return folds;
}

/** doctor's finding over every cached moon task; undefined where moon is not configured (no query is run). */
export async function moonProof(
  root: string,
  env: Env,
  mode: SoundKeysMode | undefined,
): Promise<SoundCheck | undefined> {
  if (moonWorkspaceFile(root) === undefined) return undefined;
  let folds: TaskFold[];
  try {
    folds = await moonFolds(root, env, mode);
  } catch (error) {
    return {
      runner: 'moon',
      level: 'warn',
      detail: `moon's own view of its tasks could not be read (moon query projects: ${error instanceof Error ? error.message : String(error)}), so no moon task is shown to fold its ${SLICE_FILE}`,
      fix: 'Install moon where the workspace finds it (@moonrepo/cli in devDependencies), then run lockguard doctor again.',
    };
  }
  const check = soundCheckOf('moon', findingsOf(folds, root), mode);
  return { ...check, detail: check.detail.replace("(moon's own plan says so)", '(moon query projects says so)') };
}
