// Sound keys: turbo and nx fold each project's `.lockguard-slice`, so their own keys change with the
// project's lockfile slice (README "Sound keys"; this folder's README.md).
//
// Owns: `soundKeysEdits` (everything `init --sound-keys` changes: turbo.json files, .nxignore, nx.json,
// project.json files, and `.lockguard-slice` in the root .gitignore), `writeEdits`, `soundKeysWanted` (turbo
// or nx is configured: init does it by default there), and `soundKeysProof` (doctor: each runner's own plan).
// Invariants: every edit is planned before any file is written, so a file that cannot be parsed leaves the
// workspace as it was; a second init plans nothing; writes are atomic (stage, then rename).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../../run/atomic.js';
import { nxConfigured, nxEdits, nxProof } from './nx.js';
import { turboEdits, turboFileIn, turboProof } from './turbo.js';
import { type FileEdit, SLICE_FILE, type SoundCheck } from './types.js';

export { SLICE_FILE, SOUND_KEYS_FIX, type FileEdit, type SoundCheck } from './types.js';
export { NXIGNORE_LINE, NX_INPUT } from './nx.js';

/** .gitignore lines that ignore the slice file in every folder. */
const IGNORES_SLICE = new Set([SLICE_FILE, `**/${SLICE_FILE}`]);

function gitignoreEdit(root: string): FileEdit | undefined {
  const path = join(root, '.gitignore');
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (text.split(/\r?\n/).some((line) => IGNORES_SLICE.has(line.trim()))) return undefined;
  const sep = text === '' || text.endsWith('\n') ? '' : '\n';
  return {
    file: '.gitignore',
    text: `${text}${sep}# lockguard's per-project lockfile slice files (written by lockguard, folded by the runners' keys)\n${SLICE_FILE}\n`,
    added: [`${SLICE_FILE} (each project's slice file is written on every machine, never committed)`],
  };
}

/** Whether turbo or nx is configured at `root` (where init sets sound keys up by default). */
export function soundKeysWanted(root: string): boolean {
  return turboFileIn(root) !== undefined || nxConfigured(root);
}

/** Every change sound keys need at `root` (empty: already set up); throws ERR_LOCKGUARD_BAD_CONFIG before anything is written. */
export function soundKeysEdits(root: string): FileEdit[] {
  const runners = [...turboEdits(root), ...nxEdits(root)];
  const ignore = gitignoreEdit(root);
  return ignore === undefined ? runners : [...runners, ignore];
}

/** Write the planned edits (each atomically). */
export function writeEdits(root: string, edits: readonly FileEdit[]): void {
  for (const edit of edits) writeAtomic(join(root, edit.file), edit.text);
}

/** doctor's proof, one finding per configured runner that has cached tasks (turbo's dry run, nx's task plans). */
export async function soundKeysProof(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<SoundCheck[]> {
  const found = await Promise.all([turboProof(root, env), nxProof(root, env)]);
  return found.filter((check): check is SoundCheck => check !== undefined);
}
