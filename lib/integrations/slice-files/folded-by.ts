// Which runners of a workspace fold its per-project slice files (`.lockguard-slice`) into their keys.
//
// Owns: the adoption question the slice-file writers ask before writing into a workspace that never asked
// for the files (`lockguard run` and the install hooks write them only where a runner folds them, or where
// lockguard already wrote them once: ledger/slice-files.ts's record), and the runner names the status line says.
// The answer is read from the runners' own configuration as `lockguard init --sound-keys` writes it, parsed
// (JSONC: comments are no configuration): turbo when a task's `inputs` in the root turbo.json (or
// turbo.jsonc) names the file, nx when nx.json's `namedInputs`/`targetDefaults` or a non-comment line of
// .nxignore does (nx hashes a gitignored file only once .nxignore un-ignores it), wireit when a cached script's
// `files` in a wireit package's package.json does, moon when a task's `inputs` in a moon.yml or an inherited task
// file does, lage when a literal `inputs` array of lage.config.js does (code, never run: its text). Never a
// substring of the text.
// Invariants: reads at most five root files (and, where wireit is configured or installed, the wireit packages'
// package.json files), only when asked (never on a run whose record is current), each
// through the bounded reader (core/bounded-read.ts: never a device or FIFO, at most 16 MiB, a link only to a
// file inside the workspace); an absent or unparsable config folds nothing; one the bounded reader refuses is
// its LockguardError (the CLI exits 2 naming it; the install hooks turn it into their warning line).

import { join } from 'node:path';
import { readBounded } from '../../core/bounded-read.js';
import { SLICE_FILE } from '../../ledger/slice-files.js';
import { type JsonNode, parseJsonc, prop } from '../sound-keys/jsonc.js';
import type { RunnerName } from '../runners/types.js';
import { moonWorkspaceFile } from '../runners/moon/config.js';
import { moonNamesSlice } from '../runners/moon/task-files.js';
import { wireitPackages, wireitPresent } from '../runners/wireit/packages.js';

/** A runner whose keys can fold the slice files (its adapter has `soundKeys`). */
export type SliceRunner = Exclude<RunnerName, 'none'>;

/**
 * Each runner adapter's `soundKeys.configFiles`, written out: the install hooks read this module without
 * loading the adapters (test/integrations/runners/registry.test.ts holds the two equal).
 */
export const CONFIGS: ReadonlyArray<readonly [runner: SliceRunner, file: string]> = [
  ['turbo', 'turbo.json'],
  ['turbo', 'turbo.jsonc'],
  ['nx', 'nx.json'],
  ['nx', '.nxignore'],
  ['wireit', 'package.json'],
  ['moon', '.moon/workspace.yml'],
  ['lage', 'lage.config.js'],
];

/** lage: an `inputs: [...]` whose string items include the slice file (lage.config.js as init edits it). */
const LAGE_INPUTS_NAME = /\binputs\s*:\s*\[[^\]]*['"](?:[^'"\]]*\/)?\.lockguard-slice['"]/;

/** moon is configured: its workspace file, in `.moon/` or `.config/moon/`. */
function moonConfigured(root: string): boolean {
  return moonWorkspaceFile(root) !== undefined;
}

/** A path or glob naming the slice file: the file itself, or one ending in it (`{projectRoot}/.lockguard-slice`). */
function namesSlice(value: string): boolean {
  const path = value.startsWith('!') ? value.slice(1) : value;
  return path === SLICE_FILE || path.endsWith(`/${SLICE_FILE}`);
}

/** Whether any string value in `node` (not a key) names the slice file. */
function anyNames(node: JsonNode | undefined): boolean {
  if (node === undefined) return false;
  if (node.kind === 'string') return namesSlice(node.value);
  if (node.kind === 'array') return node.items.some(anyNames);
  if (node.kind === 'object') return node.props.some((entry) => anyNames(entry.value));
  return false;
}

/** turbo: some task's `inputs` (turbo 2 `tasks`, turbo 1 `pipeline`) lists the file. */
function turboNames(tree: JsonNode): boolean {
  const tasks = prop(tree, 'tasks') ?? prop(tree, 'pipeline');
  if (tasks?.kind !== 'object') return false;
  return tasks.props.some(({ value }) => {
    const inputs = prop(value, 'inputs');
    return inputs?.kind === 'array' && inputs.items.some((item) => item.kind === 'string' && namesSlice(item.value));
  });
}

/** nx.json: a named input or a target default's inputs name the file. */
function nxNames(tree: JsonNode): boolean {
  const targets = prop(tree, 'targetDefaults');
  const targetInputs = targets?.kind === 'object' ? targets.props.map(({ value }) => prop(value, 'inputs')) : [];
  return anyNames(prop(tree, 'namedInputs')) || targetInputs.some(anyNames);
}

/** wireit: a cached script in a wireit package's package.json (its `wireit` block) lists the file in `files`. */
function wireitNames(root: string): boolean {
  for (const dir of wireitPackages(root)) {
    const text = readBounded(join(root, dir, 'package.json'), { kind: 'config', root })?.toString('utf8');
    if (text === undefined || !text.includes(SLICE_FILE)) continue;
    try {
      const block = prop(parseJsonc(text), 'wireit');
      if (block?.kind === 'object' && block.props.some(({ value }) => anyNames(prop(value, 'files')))) return true;
    } catch {
      // Not JSON: it names nothing.
    }
  }
  return false;
}

function names(root: string, file: string): boolean {
  // wireit's scripts live in each package's package.json; only where wireit is configured.
  if (file === 'package.json') return wireitPresent(root) && wireitNames(root);
  // moon's tasks live in each project's moon.yml and the inherited task files; only where moon is configured.
  if (file === '.moon/workspace.yml') return moonConfigured(root) && moonNamesSlice(root, SLICE_FILE);
  const text = readBounded(join(root, file), { kind: 'config', root })?.toString('utf8');
  if (text === undefined) return false;
  if (file === '.nxignore')
    return text.split('\n').some((line) => !line.trimStart().startsWith('#') && namesSlice(line.trim()));
  if (!text.includes(SLICE_FILE)) return false;
  // lage.config.js is code, never run here: a literal `inputs` array naming the file (what init writes).
  if (file === 'lage.config.js') return LAGE_INPUTS_NAME.test(text);
  try {
    const tree = parseJsonc(text);
    return file === 'nx.json' ? nxNames(tree) : turboNames(tree);
  } catch {
    return false;
  }
}

/**
 * The runners whose configuration at `root` names `.lockguard-slice`, in a fixed order; `among`: only these
 * are asked (a run passes the runners it found configured, so a workspace with neither reads nothing).
 */
export function runnersFoldingSlices(root: string, among?: readonly string[]): SliceRunner[] {
  const found: SliceRunner[] = [];
  for (const [runner, file] of CONFIGS) {
    if (among !== undefined && !among.includes(runner)) continue;
    if (!found.includes(runner) && names(root, file)) found.push(runner);
  }
  return found;
}
