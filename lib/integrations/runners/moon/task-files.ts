// The YAML files that declare moon tasks, and each task's `inputs` as written there: what `init --sound-keys`
// edits and the install hooks' adoption check reads.
//
// Owns: `moonTaskFiles` (each project's `moon.yml`/`moon.yaml`, found under the root at most five folders deep,
// never in node_modules or dot folders, and the inherited `<config dir>/tasks.yml` and `tasks/**/*.yml`) and
// `tasksOf` (the `tasks:` block of one file, line by line: each task's id, whether `options.cache` is false, and
// its `inputs`: a one-line flow list, a block list, absent, or anything else, which is `other`).
// Invariants: read-only; a file that is absent or unreadable has no tasks; a shape not read here is `other`, never
// guessed (init then says the edit to make instead of making it).

import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import { moonConfigDir } from './config.js';

const DEPTH = 5;

type TaskInputs =
  | { readonly kind: 'none' }
  /** `inputs: [a, b]` on the task's `inputs:` line (`line`), its `]` at `close`. */
  | { readonly kind: 'flow'; readonly line: number; readonly close: number; readonly items: readonly string[] }
  /** `inputs:` followed by `- item` lines; `last`: the last item's line, `indent`: the items' `-` column. */
  | { readonly kind: 'block'; readonly last: number; readonly indent: number; readonly items: readonly string[] }
  | { readonly kind: 'other'; readonly line: number };

export interface MoonTask {
  readonly id: string;
  /** The task's id line. */
  readonly line: number;
  /** The column its settings start at. */
  readonly bodyIndent: number;
  readonly cached: boolean;
  readonly inputs: TaskInputs;
}

/** Each `moon.yml`/`moon.yaml` under the root and the inherited task files, relative, POSIX. */
export function moonTaskFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isFile() && (entry.name === 'moon.yml' || entry.name === 'moon.yaml')) out.push(path);
      else if (entry.isDirectory() && depth < DEPTH && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
        walk(path, depth + 1);
    }
  };
  walk('', 0);
  const config = moonConfigDir(root);
  for (const name of ['tasks.yml', 'tasks.yaml'])
    if (readConfigText(join(root, config, name), root) !== undefined) out.push(`${config}/${name}`);
  const inherited = (rel: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) inherited(`${rel}/${entry.name}`);
      else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) out.push(`${rel}/${entry.name}`);
    }
  };
  inherited(`${config}/tasks`);
  return out;
}

const unquote = (value: string): string => /^(["'])(.*)\1$/.exec(value.trim())?.[2] ?? value.trim();
const indentOf = (line: string): number => line.length - line.trimStart().length;
const blank = (line: string): boolean => /^\s*(#.*)?$/.test(line);

/** A task's `inputs:` value starting at `index` (the `inputs:` line). */
function inputsAt(lines: readonly string[], index: number, end: number): TaskInputs {
  const line = lines[index] ?? '';
  const value = line
    .slice(line.indexOf(':') + 1)
    .replace(/\s+#.*$/, '')
    .trim();
  if (value.startsWith('[')) {
    const close = line.lastIndexOf(']');
    if (close < 0 || !value.endsWith(']')) return { kind: 'other', line: index };
    const inner = value.slice(1, -1).trim();
    return { kind: 'flow', line: index, close, items: inner === '' ? [] : inner.split(',').map(unquote) };
  }
  if (value !== '') return { kind: 'other', line: index };
  const items: string[] = [];
  let last = -1;
  let indent = -1;
  for (let at = index + 1; at < end; at++) {
    const next = lines[at] ?? '';
    if (blank(next)) continue;
    const item = /^(\s*)-\s+(.*)$/.exec(next);
    if (item === null || (indent >= 0 && (item[1] ?? '').length !== indent)) break;
    indent = (item[1] ?? '').length;
    items.push(unquote((item[2] ?? '').replace(/\s+#.*$/, '')));
    last = at;
  }
  return last < 0 ? { kind: 'other', line: index } : { kind: 'block', last, indent, items };
}

/** One task's settings between its id line and `end`. */
function taskAt(lines: readonly string[], id: string, line: number, end: number): MoonTask {
  let bodyIndent = -1;
  let inputs: TaskInputs = { kind: 'none' };
  let cached = true;
  let inOptions = -1;
  for (let at = line + 1; at < end; at++) {
    const text = lines[at] ?? '';
    if (blank(text)) continue;
    const indent = indentOf(text);
    if (bodyIndent < 0) bodyIndent = indent;
    if (indent === bodyIndent) {
      inOptions = /^\s*options\s*:\s*$/.test(text) ? indent : -1;
      if (/^\s*inputs\s*:/.test(text)) inputs = inputsAt(lines, at, end);
    } else if (inOptions >= 0 && /^\s*cache\s*:\s*(false|["']?off["']?)\s*(#.*)?$/.test(text)) cached = false;
  }
  return { id, line, bodyIndent: bodyIndent < 0 ? indentOf(lines[line] ?? '') + 2 : bodyIndent, cached, inputs };
}

/** The tasks of a moon YAML file's top-level `tasks:` block. */
export function tasksOf(text: string): MoonTask[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^tasks\s*:\s*(#.*)?$/.test(line));
  if (start < 0) return [];
  let end = lines.length;
  for (let at = start + 1; at < lines.length; at++)
    if (!blank(lines[at] ?? '') && indentOf(lines[at] ?? '') === 0) {
      end = at;
      break;
    }
  const heads: { id: string; line: number }[] = [];
  let taskIndent = -1;
  for (let at = start + 1; at < end; at++) {
    const text = lines[at] ?? '';
    if (blank(text)) continue;
    if (taskIndent < 0) taskIndent = indentOf(text);
    const head = /^\s*(["']?)([^\s:"']+)\1\s*:\s*(#.*)?$/.exec(text);
    if (indentOf(text) === taskIndent && head !== null) heads.push({ id: head[2] ?? '', line: at });
  }
  return heads.map((head, index) => taskAt(lines, head.id, head.line, heads[index + 1]?.line ?? end));
}

/** A path naming the slice file: the file itself, or one ending in it (`/.lockguard-slice`, `{projectRoot}/…`). */
export function namesSliceFile(value: string, slice: string): boolean {
  return value === slice || value.endsWith(`/${slice}`);
}

/** Whether some task of a moon task file names `slice` in its `inputs` (the install hooks' adoption check). */
export function moonNamesSlice(root: string, slice: string): boolean {
  for (const file of moonTaskFiles(root)) {
    const text = readConfigText(join(root, file), root);
    if (text === undefined || !text.includes(slice)) continue;
    for (const task of tasksOf(text))
      if (
        (task.inputs.kind === 'flow' || task.inputs.kind === 'block') &&
        task.inputs.items.some((item) => namesSliceFile(item, slice))
      )
        return true;
  }
  return false;
}
