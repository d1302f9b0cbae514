// pnpm lockfiles before v9 (lockfileVersion 6.0 / 6.1, written by pnpm 8), read through @pnpm/lockfile-file
// and turned into the same index the v9 text reader builds, so graph.ts, the Merkle pass and the diff
// work on them unchanged.
//
// Owns: `indexPnpmV6` (bytes in, PnpmLockIndex out) and which lockfileVersions take this path.
// How: @pnpm/lockfile-file 9.1.3 offers only file readers (`readWantedLockfile(dir)`; its converters are
// not exported), so the bytes are written to a private temp folder, read there, and the folder removed.
// Its in-memory shape: v6 keys (`/name@1.0.0(peer@1.0.0)`, `file:x.tgz`) are renamed to v9 depPaths
// (`name@1.0.0(peer@1.0.0)`, `name@file:x.tgz`), references are rewritten to match, a single-project file's
// top-level dependency maps become importer '.', and each `packages` entry is one object (v6 has no
// `snapshots`: resolution and dependencies live together).
//
// THE V6 SLICE (mirrors the v9 definition in slices.ts). A project's slice is its importer plus every
// `packages` entry it reaches through dependencies, devDependencies and optionalDependencies of the
// importer and dependencies/optionalDependencies of packages, and other importers through `link:`
// references. An importer's own content is its id, its parsed entry (specifiers, dependency maps, meta),
// the lockfile version and the `settings` block; a package's is its depPath and its parsed entry
// (resolution, peers, engines, dev/optional flags...). Not folded: `overrides`, `patchedDependencies`
// and the rest of the top level, as for v9. Entries are folded as canonical JSON (keys sorted) of what
// lockfile-file parsed, not as bytes: a reformatting that parses to the same values keeps every digest.
// A v6 slice never equals the v9 slice of the same tree (the version is folded): a migration moves them.
// Not taken: lockfileVersion 5.x (pnpm 7): lockfile-file 9.1.3 does not rename its `/name/1.0.0_peer` keys,
// so references would not resolve; it gets ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE with the fix.
// Invariants: @pnpm/lockfile-file is imported here only, on demand (its cold load costs ~200 ms: the v9 path
// never pays it); the temp folder is removed even on failure. Must never: echo lockfile contents in
// errors (lockfile-file's parse messages quote them: only the line:column is kept).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { nodeOs } from '../../lazy-builtins.js';
import { join } from 'node:path';
import { LockguardError, type TextPosition } from '../../errors.js';
import { importExternal } from '../../external.js';
import { brokenLockfile } from '../../lockfile-errors.js';
import type { PnpmDep, PnpmEntry, PnpmLockIndex } from './lockfile-index.js';
import { decodePnpmLockfile, readYamlLines, yamlDocuments } from './yaml/index.js';

/** True for the lockfile versions this module reads (pnpm 8's '6.0' and '6.1'). */
export function isPnpmV6(version: string): boolean {
  return /^6\.\d+$/.test(version);
}

/** The first top-level `lockfileVersion:` of a pnpm lockfile's text, unquoted ('' when there is none). */
export function sniffLockfileVersion(text: string): string {
  const match = /^\uFEFF?lockfileVersion:[ \t]*(.*?)[ \t]*\r?$/m.exec(text);
  return (match?.[1] ?? '').replace(/^(['"])(.*)\1$/, '$2');
}

type Refs = Readonly<Record<string, unknown>>;
interface ParsedImporter {
  readonly specifiers?: Refs;
  readonly dependencies?: Refs;
  readonly devDependencies?: Refs;
  readonly optionalDependencies?: Refs;
}
interface ParsedLockfile {
  readonly lockfileVersion?: unknown;
  readonly settings?: unknown;
  readonly importers?: Readonly<Record<string, ParsedImporter>>;
  readonly packages?: Readonly<Record<string, { readonly dependencies?: Refs; readonly optionalDependencies?: Refs }>>;
}

const broken = (path: string, reason: string, position?: TextPosition): LockguardError =>
  brokenLockfile(path, reason, position);

/** JSON with object keys sorted at every level: the folded form of a parsed entry. */
function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) => {
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(inner).sort()) sorted[key] = (inner as Record<string, unknown>)[key];
      return sorted;
    }) ?? 'null'
  );
}

const isMap = (value: unknown): value is Refs => value !== null && typeof value === 'object' && !Array.isArray(value);

function depsOf(maps: readonly unknown[], specifiers?: Refs): PnpmDep[] {
  const deps: PnpmDep[] = [];
  for (const map of maps) {
    if (!isMap(map)) continue;
    for (const [name, ref] of Object.entries(map)) {
      if (typeof ref !== 'string') continue;
      const specifier = specifiers?.[name];
      deps.push(typeof specifier === 'string' ? { name, ref, specifier } : { name, ref });
    }
  }
  return deps;
}

/** The index graph.ts builds the graph from, from lockfile-file's in-memory lockfile. */
function indexFromParsed(lockfile: ParsedLockfile, path: string): PnpmLockIndex {
  if (!isMap(lockfile) || typeof lockfile.lockfileVersion !== 'string' || !isPnpmV6(lockfile.lockfileVersion)) {
    throw broken(path, 'pnpm reads no lockfileVersion 6 from it');
  }
  const importers = new Map<string, PnpmEntry>();
  for (const [id, importer] of Object.entries(isMap(lockfile.importers) ? lockfile.importers : {})) {
    const entry = isMap(importer) ? importer : {};
    const specifiers = isMap(entry.specifiers) ? entry.specifiers : undefined;
    importers.set(id, {
      key: id,
      text: `${id}\n${canonicalJson(entry)}`,
      deps: depsOf([entry.dependencies, entry.devDependencies, entry.optionalDependencies], specifiers),
    });
  }
  const snapshots = new Map<string, PnpmEntry>();
  for (const [key, pkg] of Object.entries(isMap(lockfile.packages) ? lockfile.packages : {})) {
    const entry = isMap(pkg) ? pkg : {};
    snapshots.set(key, {
      key,
      text: `${key}\n${canonicalJson(entry)}`,
      deps: depsOf([entry.dependencies, entry.optionalDependencies]),
    });
  }
  return {
    lockfileVersion: lockfile.lockfileVersion,
    settingsText: lockfile.settings === undefined ? '' : `settings\n${canonicalJson(lockfile.settings)}`,
    importers,
    // v6 keeps resolution and dependencies in one entry: each snapshot text holds it whole.
    packages: new Map(),
    snapshots,
    catalogs: new Map(),
    hadEnvDocument: false,
  };
}

/** Parse v6 `bytes` with @pnpm/lockfile-file (loaded on first use). `path` only names the file in errors. */
export async function indexPnpmV6(bytes: Buffer, path: string): Promise<PnpmLockIndex> {
  // The YAML is checked line by line first, as for v9: what js-yaml would refuse is refused with its line, and
  // what it would expand (an alias bomb) or recurse on without end never reaches it.
  const text = decodePnpmLockfile(bytes, path);
  for (const doc of yamlDocuments(text)) readYamlLines(text, doc, path, () => undefined);
  const { readWantedLockfile } = await importExternal('@pnpm/lockfile-file');
  const dir = mkdtempSync(join(nodeOs().tmpdir(), 'lockguard-v6-'));
  let parsed: unknown;
  try {
    writeFileSync(join(dir, 'pnpm-lock.yaml'), bytes);
    try {
      parsed = await readWantedLockfile(dir, { ignoreIncompatible: false });
    } catch (error) {
      // lockfile-file's message quotes the offending lines: keep only js-yaml's "(line:column)".
      const message = error instanceof Error ? error.message : '';
      const at = /\((\d+):(\d+)\)/.exec(message);
      throw broken(
        path,
        'pnpm cannot parse it',
        at === null ? undefined : { line: Number(at[1]), column: Number(at[2]) },
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (parsed === null) throw broken(path, 'pnpm read no lockfile from it');
  try {
    return indexFromParsed(parsed as ParsedLockfile, path);
  } catch (error) {
    if (error instanceof LockguardError) throw error;
    throw broken(path, 'pnpm parsed it to an unexpected shape');
  }
}
