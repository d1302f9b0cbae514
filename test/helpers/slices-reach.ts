// Test-only: which importers reach what, computed the slow, obvious way over @pnpm/lockfile-file's parse
// (pnpm) or the JSON (npm), independently of lib/core/slices.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';

type Refs = Record<string, string> | undefined;
interface PnpmParsed {
  importers: Record<string, { dependencies?: Refs; devDependencies?: Refs; optionalDependencies?: Refs }>;
  packages?: Record<string, { dependencies?: Refs; optionalDependencies?: Refs }>;
}

/** The main document of a (possibly two-document) pnpm lockfile: what @pnpm/lockfile-file accepts. */
export function mainDocument(text: string): string {
  const parts = text.split(/^---[ \t]*$/m).filter((part) => part.trim() !== '');
  return (parts.at(-1) ?? '').replace(/^\r?\n/, '');
}

/** Parse with @pnpm/lockfile-file (writes the main document into `dir` first). */
export async function parseWithPnpm(dir: string, text: string): Promise<PnpmParsed> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'pnpm-lock.yaml'), mainDocument(text));
  const { readWantedLockfile } = await import('@pnpm/lockfile-file');
  const lockfile = await readWantedLockfile(dir, { ignoreIncompatible: false });
  if (lockfile === null) throw new Error('lockfile-file returned null');
  return lockfile as unknown as PnpmParsed;
}

/** Per importer: every node (`pkg:<depPath>` / `importer:<id>`) it reaches, itself included. */
export function pnpmReach(lockfile: PnpmParsed): Map<string, Set<string>> {
  const edgesOf = (node: string): string[] => {
    const out: string[] = [];
    const add = (refs: Refs, fromDir: string): void => {
      for (const [name, ref] of Object.entries(refs ?? {})) {
        if (ref.startsWith('link:')) {
          const target = posix.normalize(posix.join(fromDir, ref.slice(5))).replace(/\/$/, '') || '.';
          out.push(`importer:${target}`);
        } else {
          const head = ref.split('(')[0] ?? '';
          out.push(`pkg:${head.lastIndexOf('@') > 0 ? ref : `${name}@${ref}`}`);
        }
      }
    };
    if (node.startsWith('importer:')) {
      const id = node.slice('importer:'.length);
      const entry = lockfile.importers[id];
      if (entry !== undefined)
        for (const group of [entry.dependencies, entry.devDependencies, entry.optionalDependencies]) add(group, id);
    } else {
      const entry = lockfile.packages?.[node.slice('pkg:'.length)];
      if (entry !== undefined) for (const group of [entry.dependencies, entry.optionalDependencies]) add(group, '.');
    }
    return out;
  };
  const reach = new Map<string, Set<string>>();
  for (const id of Object.keys(lockfile.importers)) {
    const seen = new Set<string>([`importer:${id}`]);
    const todo = [`importer:${id}`];
    while (todo.length > 0)
      for (const next of edgesOf(todo.pop() as string)) if (!seen.has(next)) seen.add(next), todo.push(next);
    reach.set(id, seen);
  }
  return reach;
}

export interface NpmEntry {
  version?: string;
  link?: boolean;
  resolved?: string;
  dependencies?: Refs;
  optionalDependencies?: Refs;
  peerDependencies?: Refs;
  devDependencies?: Refs;
}

/** Per npm project location ('.' for the root): every location it reaches, itself included. */
export function npmReach(packages: Record<string, NpmEntry>): Map<string, Set<string>> {
  const isProject = (loc: string): boolean => loc === '' || !loc.split('/').includes('node_modules');
  const find = (from: string, name: string): string | undefined => {
    // Node's lookup: every folder from `from` up to the root, except folders named node_modules.
    const segments = from === '' ? [] : from.split('/');
    for (let cut = segments.length; cut >= 0; cut--) {
      const base = segments.slice(0, cut);
      if (base.at(-1) === 'node_modules') continue;
      const candidate = [...base, 'node_modules', name].join('/');
      if (candidate in packages) return candidate;
    }
    return undefined;
  };
  const reach = new Map<string, Set<string>>();
  for (const project of Object.keys(packages).filter(isProject)) {
    const seen = new Set<string>([project]);
    const todo = [project];
    while (todo.length > 0) {
      const loc = todo.pop() as string;
      const entry = packages[loc] as NpmEntry;
      const next: string[] = [];
      if (entry.link === true && entry.resolved !== undefined) next.push(entry.resolved);
      else {
        const groups = [
          entry.dependencies,
          entry.optionalDependencies,
          entry.peerDependencies,
          ...(isProject(loc) ? [entry.devDependencies] : []),
        ];
        for (const group of groups)
          for (const name of Object.keys(group ?? {})) {
            const found = find(loc, name);
            if (found !== undefined) next.push(found);
          }
      }
      for (const n of next) if (!seen.has(n) && n in packages) seen.add(n), todo.push(n);
    }
    reach.set(project === '' ? '.' : project, seen);
  }
  return reach;
}
