// Sound keys for wireit 0.14.13: every cached script's `files` names its package's `.lockguard-slice`, and
// doctor's finding of which scripts do.
//
// Owns: `wireitEdits` (each wireit package's package.json: a cached script, one with a `command`, `files` and
// `output`, whose `files` leave the slice file out (`**/*` takes it in already) gets `".lockguard-slice"` appended; the same in both
// modes: wireit hashes exactly the files its globs match, committed or gitignored alike, dot files included
// (its glob runs with `dot: true`), so committed files need the entry too), `wireitFolds` (each cached script
// and whether its `files` take the file in) and `wireitProof` (doctor's finding).
// wireit has no dry run: the finding is read from the scripts' own `files`, as wireit globs them (`!` excludes
// applied; a glob lockguard cannot read counts as leaving the file out, so doctor never says "ok" falsely).
// A script without `files` or `output` is never cached (wireit runs it every time), so it needs nothing.
// Measured (FIELD-NOTES): with `.lockguard-slice` in `files`, a lockfile-only bump rebuilt exactly b.
// Invariants: edits only insert (jsonc.ts), so every other byte of each package.json stays; a package.json that
// is not JSON is ERR_LOCKGUARD_BAD_CONFIG and nothing is written; never runs wireit.

import { join, posix } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import { appendItem, applyEdits, type JsonNode, prop, type TextEdit } from '../../sound-keys/jsonc.js';
import { findingsOf, soundCheckOf, type TaskFold } from '../../sound-keys/findings.js';
import { foldsPath } from '../../sound-keys/globs.js';
import { type FileEdit, parseConfig, SLICE_FILE, type SoundCheck } from '../../sound-keys/types.js';
import { wireitPackages } from './packages.js';

interface CachedScript {
  readonly name: string;
  readonly files: JsonNode & { kind: 'array' };
  readonly globs: readonly string[];
}

/** The scripts of a package.json's `wireit` block that wireit caches (a command, `files` and `output`). */
function cachedScripts(tree: JsonNode): CachedScript[] {
  const block = prop(tree, 'wireit');
  if (block?.kind !== 'object') return [];
  const out: CachedScript[] = [];
  for (const { key, value } of block.props) {
    const files = prop(value, 'files');
    if (prop(value, 'command') === undefined || prop(value, 'output') === undefined || files?.kind !== 'array')
      continue;
    const globs = files.items.map((item) => (item.kind === 'string' ? item.value : ''));
    out.push({ name: key, files, globs });
  }
  return out;
}

interface Manifest {
  readonly dir: string;
  readonly file: string;
  readonly text: string;
  readonly tree: JsonNode;
}

/** Each wireit package's package.json, parsed (ERR_LOCKGUARD_BAD_CONFIG for one that is not JSON). */
function manifests(root: string): Manifest[] {
  return wireitPackages(root).map((dir) => {
    const file = join(root, dir, 'package.json');
    const text = readConfigText(file, root) ?? '';
    return { dir, file, text, tree: parseConfig(text, file, 'package.json (JSON)') };
  });
}

export function wireitEdits(root: string): FileEdit[] {
  const out: FileEdit[] = [];
  for (const { dir, text, tree } of manifests(root)) {
    const edits: TextEdit[] = [];
    const added: string[] = [];
    for (const script of cachedScripts(tree)) {
      if (foldsPath(script.globs, SLICE_FILE)) continue;
      edits.push(appendItem(text, script.files, JSON.stringify(SLICE_FILE)));
      added.push(`wireit.${script.name}.files: + "${SLICE_FILE}"`);
    }
    if (edits.length > 0) out.push({ file: posix.join(dir, 'package.json'), text: applyEdits(text, edits), added });
  }
  return out;
}

/** Each cached script (`<package dir>:<script>`) and whether its `files` take its package's slice file in. */
export function wireitFolds(root: string): TaskFold[] {
  return manifests(root).flatMap(({ dir, tree }) =>
    cachedScripts(tree).map((script) => ({
      id: `${dir === '.' ? '' : dir}:${script.name}`,
      file: dir === '.' ? SLICE_FILE : `${dir}/${SLICE_FILE}`,
      folds: foldsPath(script.globs, SLICE_FILE),
    })),
  );
}

/** doctor's finding over every cached wireit script; undefined where wireit caches none. */
export function wireitProof(root: string, mode: Parameters<typeof soundCheckOf>[2]): SoundCheck | undefined {
  const folds = wireitFolds(root);
  if (folds.length === 0) return undefined;
  const check = soundCheckOf('wireit', findingsOf(folds, root), mode);
  return {
    ...check,
    detail: check.detail
      .replace("(wireit's own plan says so)", "(each script's own files say so: wireit has no dry run)")
      .replaceAll('cached wireit tasks', 'cached wireit scripts')
      .replaceAll('cached wireit task ', 'cached wireit script '),
  };
}
