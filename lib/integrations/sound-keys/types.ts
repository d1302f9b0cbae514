// The shapes sound keys share: the slice file's name, one file's planned edit, one doctor finding.
//
// Owns: `SLICE_FILE` (the name every workspace project's slice file has, next to its package.json),
// `SoundKeysMode` (ignored or committed) and the fix that sets one up, `FileEdit`, `SoundCheck` and
// `configError` (a turbo.json / nx.json / project.json that cannot be read as JSONC).
// Invariants: an edit is planned from the file's text alone; nothing here writes or spawns.

import { LockguardError } from '../../core/errors.js';
import type { RunnerName } from '../runners/types.js';
import { JsoncError, parseJsonc, type JsonNode } from './jsonc.js';

/**
 * How the slice files reach the runners' keys. `ignored` (the default): gitignored, written on every machine,
 * named in turbo's `inputs` and un-ignored for nx. `committed`: committed with each lockfile change, hashed by
 * turbo's and nx's default inputs as any committed file is (no `inputs` entry: cheaper on a warm turbo run).
 */
export type SoundKeysMode = 'ignored' | 'committed';
export const SOUND_KEYS_MODES: readonly SoundKeysMode[] = ['ignored', 'committed'];

/** One per workspace project, next to its package.json (written by lockguard; its content is the slice writer's). */
export { SLICE_FILE } from '../../ledger/slice-files.js';

/** What init changes in one file: its new text and, for the user, what was added. */
export interface FileEdit {
  /** Workspace-relative path. */
  readonly file: string;
  /** The text after the edit (the file is created when it was absent). */
  readonly text: string;
  /** One line per addition: `tasks.build.inputs: + ".lockguard-slice"`. */
  readonly added: readonly string[];
}

/** One finding of doctor's proof, for one runner. */
export interface SoundCheck {
  /** The runner whose plan was read; `git`: committed mode's check that git tracks the files (committed.ts). */
  readonly runner: Exclude<RunnerName, 'none'> | 'git';
  readonly level: 'ok' | 'warn' | 'fail';
  readonly detail: string;
  readonly fix?: string;
}

/** The fix doctor names for a task whose key leaves its slice file out. */
const SOUND_KEYS_FIX = 'lockguard init --sound-keys';

/** The init that sets `mode` up (the fix doctor names in that mode). */
export function soundKeysFix(mode: SoundKeysMode | undefined): string {
  return mode === 'committed' ? `${SOUND_KEYS_FIX}=committed` : SOUND_KEYS_FIX;
}

/** `text` (the file at `path`) parsed as JSONC, or ERR_LOCKGUARD_BAD_CONFIG naming the file and where. */
export function parseConfig(text: string, path: string, what: string): JsonNode {
  try {
    return parseJsonc(text);
  } catch (error) {
    if (!(error instanceof JsoncError)) throw error;
    throw new LockguardError('ERR_LOCKGUARD_BAD_CONFIG', `Cannot read "${path}" as ${what}: ${error.message}.`, {
      path,
      position: { line: error.line, column: error.column },
      hint: `Fix the file (${what} allows comments and trailing commas), then run the command again (lockguard init writes nothing until every file reads; --no-sound-keys sets up the rest).`,
    });
  }
}
