// Sound keys: turbo and nx fold each project's `.lockguard-slice`, so their own keys change with the
// project's lockfile slice (README "Sound keys"; this folder's README.md). What each runner does for it is
// its adapter's `soundKeys` (runners/<runner>/sound-keys.ts); here: the runners together, and the .gitignore.
//
// Owns: `soundKeysEdits` (everything `init --sound-keys[=ignored|committed]` changes: turbo.json files,
// .nxignore, nx.json, project.json files, and `.lockguard-slice` in the root .gitignore; switching modes takes
// the other mode's entries back), `writeEdits`, `soundKeysWanted` (turbo or nx is configured: init does it by
// default there), `soundKeysMode` (which mode a clone is in, from its files), and `soundKeysProof` (doctor:
// each runner's own plan; in committed mode, git's view of the files too: committed.ts).
// Invariants: every edit is planned before any file is written, so a file that cannot be parsed leaves the
// workspace as it was; a second init plans nothing; writes are atomic (stage, then rename).

import type { Env } from '../../core/env.js';
import { lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { checkLink } from '../../core/bounded-read.js';
import { realFileSystem } from '../../core/file-probe.js';
import { writeAtomic } from '../../ledger/atomic.js';
import { rootSliceFileExists, SLICE_IGNORE_LINES } from '../../ledger/slice-files.js';
import { committedProof } from './committed.js';
import { ignoreFileEdit, type IgnoreLine } from './ignore-lines.js';
import type { SoundKeysSide } from '../runners/adapter.js';
import { RUNNERS } from '../runners/registry.js';
import { type FileEdit, SLICE_FILE, type SoundCheck, type SoundKeysMode } from './types.js';
import { readConfigText } from '../../core/bounded-read.js';

export {
  SLICE_FILE,
  SOUND_KEYS_MODES,
  soundKeysFix,
  type FileEdit,
  type SoundCheck,
  type SoundKeysMode,
} from './types.js';

/** The runners whose keys can fold the slice files (each adapter's `soundKeys`), in the registry's order. */
const SIDES: readonly SoundKeysSide[] = RUNNERS.flatMap((adapter) => adapter.soundKeys ?? []);

/** The .gitignore line that ignores the slice file in every folder (ignored mode; committed mode takes it back). */
const GITIGNORE_SLICE: IgnoreLine = {
  line: SLICE_FILE,
  matches: SLICE_IGNORE_LINES,
  comment: "# lockguard's per-project lockfile slice files (written by lockguard, folded by the runners' keys)",
  added: `(each project's slice file is written on every machine, never committed)`,
  removed: 'removed (the slice files are committed now)',
};

/**
 * The mode a workspace is set up in, from files a fresh clone has: `ignored` where the root .gitignore
 * ignores the slice files, `committed` where it does not and the root project's file is there (committed
 * with the lockfile); undefined: neither (not set up, or no file written yet).
 */
export function soundKeysMode(root: string): SoundKeysMode | undefined {
  // No .gitignore: nothing ignored.
  const text = readConfigText(join(root, '.gitignore'), root) ?? '';
  if (text.split('\n').some((line) => GITIGNORE_SLICE.matches.has(line.trim()))) return 'ignored';
  return rootSliceFileExists(root) ? 'committed' : undefined;
}

/** How many runners with sound keys are configured at `root`. */
export function configuredSides(root: string): number {
  return SIDES.filter((side) => side.configured(root)).length;
}

/** Whether a runner with sound keys (turbo, nx, wireit, moon, lage) is configured at `root` (where init sets them up by default). */
export function soundKeysWanted(root: string): boolean {
  return SIDES.some((side) => side.configured(root));
}

/** The configured runners whose keys cannot fold the slice files in `mode`, each with why (init says so). */
export function soundKeysLeftOut(root: string, mode: SoundKeysMode): { runner: string; why: string }[] {
  return RUNNERS.flatMap((adapter) => {
    const why = adapter.soundKeys?.unsupported?.(root, mode);
    return why === undefined ? [] : [{ runner: adapter.label, why }];
  });
}

/**
 * Every change sound keys need at `root` in `mode` (empty: already set up so; switching modes takes back the
 * other mode's entries); throws ERR_LOCKGUARD_BAD_CONFIG before anything is written.
 */
export function soundKeysEdits(root: string, mode: SoundKeysMode = 'ignored'): FileEdit[] {
  const runners = SIDES.filter((side) => side.unsupported?.(root, mode) === undefined).flatMap((side) =>
    side.edits(root, mode),
  );
  const ignore = ignoreFileEdit(root, '.gitignore', GITIGNORE_SLICE, mode === 'ignored');
  return ignore === undefined ? runners : [...runners, ignore];
}

/**
 * Write the planned edits (each atomically). A file that is a link is written through to its target, a
 * regular file inside the workspace (checked again here), so the link stays a link.
 */
export function writeEdits(root: string, edits: readonly FileEdit[]): void {
  for (const edit of edits) writeAtomic(writeTarget(root, join(root, edit.file)), edit.text);
}

function writeTarget(root: string, path: string): string {
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() !== true) return path;
  checkLink(realFileSystem, path, root);
  return realpathSync(path);
}

/**
 * doctor's proof, one finding per configured runner that has cached tasks (turbo's dry run, nx's task plans),
 * and in committed mode git's view of the files (committed.ts).
 */
export async function soundKeysProof(root: string, env: Env): Promise<SoundCheck[]> {
  // Each side's configured() asked once (a side's own proof also returns nothing where it is not configured).
  const sides = SIDES.filter((side) => side.configured(root));
  if (sides.length === 0) return [];
  const mode = soundKeysMode(root);
  const found = await Promise.all([
    ...sides.map((side) => side.proof(root, env, mode)),
    mode === 'committed' ? committedProof(root, env) : undefined,
  ]);
  return found.filter((check): check is SoundCheck => check !== undefined);
}
