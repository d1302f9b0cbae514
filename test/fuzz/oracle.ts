// The pnpm oracle: does @pnpm/lockfile-file (pnpm's own reader, js-yaml underneath) accept a lockfile's
// bytes, and when it does, do lockguard's slices reach what pnpm's parse reaches?
//
// Owns: `pnpmVerdict` (lockfile-file on each YAML document of the bytes, as pnpm 12 reads both; more than two
// documents is refused as pnpm refuses it), `sameReach` (importers and, per importer, every package and
// importer it reaches, computed the slow obvious way over pnpm's parse and read back from lockguard's graph)
// and `graphReach` (that read-back walk, for any format: the yarn and bun oracles compare with it too).
// Test-only: lockguard's library never loads lockfile-file for v9 lockfiles.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { LockfileSlices } from '../../lib/core/slices/slices.js';
import { unquote } from '../../lib/core/package-managers/pnpm/yaml/index.js';

type Refs = Record<string, unknown> | undefined;
interface Parsed {
  readonly importers?: Record<string, { dependencies?: Refs; devDependencies?: Refs; optionalDependencies?: Refs }>;
  readonly packages?: Record<string, { dependencies?: Refs; optionalDependencies?: Refs }>;
}

export type OracleVerdict =
  | { readonly accepts: true; readonly main: Parsed }
  | { readonly accepts: false; readonly why: string };

/** The documents of a pnpm lockfile's text, split where pnpm splits them. */
function documents(text: string): string[] {
  return text.split(/^---[ \t]*\r?$/m).filter((part) => part.trim() !== '');
}

/** What pnpm's own reader says about `bytes` (written under `dir`, one folder per document). */
export async function pnpmVerdict(bytes: Buffer, dir: string): Promise<OracleVerdict> {
  const { readWantedLockfile } = await import('@pnpm/lockfile-file');
  const text = bytes.toString('utf8');
  const docs = documents(text.replace(/^\uFEFF/, ''));
  if (docs.length === 0) return { accepts: false, why: 'empty' };
  if (docs.length > 2) return { accepts: false, why: 'more than two documents' };
  let main: Parsed | undefined;
  for (const [i, doc] of docs.entries()) {
    const at = join(dir, `doc-${i}`);
    mkdirSync(at, { recursive: true });
    // The bytes as they are (BOM, CRLF, invalid UTF-8 included) when there is one document.
    writeFileSync(join(at, 'pnpm-lock.yaml'), docs.length === 1 ? bytes : doc.replace(/^\r?\n/, ''));
    try {
      const parsed = (await readWantedLockfile(at, { ignoreIncompatible: false })) as Parsed | null;
      if (parsed === null) return { accepts: false, why: 'no lockfile read' };
      main = parsed;
    } catch (error) {
      return {
        accepts: false,
        why: (error as { code?: string }).code ?? (error instanceof Error ? error.constructor.name : 'error'),
      };
    }
  }
  return main === undefined ? { accepts: false, why: 'nothing read' } : { accepts: true, main };
}

/**
 * Per importer, every node it reaches (`importer:<id>`, `pkg:<depPath>`), over pnpm's parse. Each node's edges
 * are read from the parse once (astro's 231 importers reach 136,000 nodes between them: reading them on every
 * visit took over a second per mutant).
 */
export function pnpmReach(lockfile: Parsed): Map<string, Set<string>> {
  const edges = new Map<string, string[]>();
  const edgesOf = (node: string): string[] => {
    let out = edges.get(node);
    if (out === undefined) edges.set(node, (out = readEdges(node)));
    return out;
  };
  const readEdges = (node: string): string[] => {
    const out: string[] = [];
    const add = (refs: Refs, fromDir: string): void => {
      if (refs === null || typeof refs !== 'object') return;
      for (const [name, value] of Object.entries(refs)) {
        if (typeof value !== 'string') continue;
        if (value.startsWith('link:'))
          out.push(`importer:${posix.normalize(posix.join(fromDir, value.slice(5))).replace(/\/$/, '') || '.'}`);
        else {
          const head = value.split('(')[0] ?? '';
          out.push(`pkg:${head.lastIndexOf('@') > 0 ? value : `${name}@${value}`}`);
        }
      }
    };
    if (node.startsWith('importer:')) {
      const entry = lockfile.importers?.[node.slice('importer:'.length)];
      if (entry !== undefined && entry !== null)
        for (const group of [entry.dependencies, entry.devDependencies, entry.optionalDependencies])
          add(group, node.slice('importer:'.length));
    } else {
      const entry = lockfile.packages?.[node.slice('pkg:'.length)];
      if (entry !== undefined && entry !== null)
        for (const group of [entry.dependencies, entry.optionalDependencies]) add(group, '.');
    }
    return out;
  };
  const reach = new Map<string, Set<string>>();
  for (const id of Object.keys(lockfile.importers ?? {})) {
    const seen = new Set([`importer:${id}`]);
    const todo = [`importer:${id}`];
    while (todo.length > 0)
      for (const next of edgesOf(todo.pop() as string)) if (!seen.has(next)) seen.add(next), todo.push(next);
    reach.set(id, seen);
  }
  return reach;
}

/** A pnpm node's id (`pkg:<depPath>` / `importer:<id>`, as pnpmReach names them), read back from its own text. */
function pnpmNodeId(own: string): string {
  const [kind = '', first = ''] = own.split('\n', 2);
  if (kind === 'importer') return `importer:${first}`;
  if (kind === 'leaf') return first.startsWith('missing ') ? `pkg:${first.slice(8)}` : `importer:${first.slice(5)}`;
  return `pkg:${unquote(first.trim().replace(/:( \{\})?$/, ''))}`;
}

/**
 * Per importer, every node lockguard's graph reaches from it (itself included), each named by `name` of its own
 * text (once per node): what an oracle's reach is compared with, for any lockfile format.
 */
export function graphReach(slices: LockfileSlices, name: (own: string) => string): Map<string, Set<string>> {
  const names: (string | undefined)[] = [];
  const nameOf = (node: number): string => (names[node] ??= name(slices.graph.own[node] ?? ''));
  const reach = new Map<string, Set<string>>();
  for (const [id, start] of slices.graph.importers) {
    const seen = new Set<number>([start]);
    const todo = [start];
    while (todo.length > 0)
      for (const next of slices.graph.edges[todo.pop() as number] ?? [])
        if (!seen.has(next)) seen.add(next), todo.push(next);
    reach.set(id, new Set([...seen].map(nameOf)));
  }
  return reach;
}

/** undefined when lockguard's slices list pnpm's importers and reach what pnpm's parse reaches; else what differs first. */
export function sameReach(slices: LockfileSlices, parsed: Parsed): string | undefined {
  const ours = graphReach(slices, pnpmNodeId);
  const theirs = pnpmReach(parsed);
  const a = [...ours.keys()].sort();
  const b = [...theirs.keys()].sort();
  if (a.join('\n') !== b.join('\n')) return `importers differ (${a.length} vs ${b.length})`;
  for (const id of a) {
    // Equal sets: as many nodes, and each of ours in theirs (no sort of 136,000 names per mutant on astro).
    const x = ours.get(id) ?? new Set<string>();
    const y = theirs.get(id) ?? new Set<string>();
    if (x.size !== y.size || [...x].some((node) => !y.has(node))) return `the reach of one importer differs`;
  }
  return undefined;
}

/** The mutators of the oracle set: damage a disk, an editor or a merge does to a file's structure. */
export const ORACLE_MUTATORS = [
  'truncate',
  'flip',
  'delete',
  'insert',
  'indent',
  'tab',
  'duplicate-line',
  'duplicate-entry',
  'swap-lines',
  'nul',
] as const;

export interface OracleCounts {
  readonly tried: number;
  /** Mutants @pnpm/lockfile-file refuses... */
  readonly rejected: number;
  /** ...of which lockguard still sliced (the number to keep at 0). */
  readonly rejectedButSliced: number;
  /** Mutants lockfile-file reads... */
  readonly accepted: number;
  /** ...of which lockguard sliced with the same importers and reach, */
  readonly acceptedSameReach: number;
  /** with another reach (a silent misreading: must be 0), */
  readonly acceptedOtherReach: number;
  /** or refused (the safe direction: a truncation that still parses, a form pnpm never writes), by reason. */
  readonly acceptedButRefused: Readonly<Record<string, number>>;
  /** Mutators of the rejected-but-sliced and other-reach mutants, for a report. */
  readonly offenders: readonly string[];
}

/**
 * Mutants of `text` (seeded), until `wanted` of them are rejected by lockfile-file, each judged by the oracle
 * and by `slice` (lockguard's slicer, or another build's for a before/after count). `dir` is scratch space.
 */
export async function oracleRun(
  text: string,
  seed: number,
  wanted: number,
  dir: string,
  slice: (bytes: Buffer, root: string) => LockfileSlices,
): Promise<OracleCounts> {
  const { mutant, random } = await import('./mutate.js');
  const rng = random(seed);
  let tried = 0;
  let rejected = 0;
  let rejectedButSliced = 0;
  let accepted = 0;
  let acceptedSameReach = 0;
  let acceptedOtherReach = 0;
  const acceptedButRefused: Record<string, number> = {};
  const offenders: string[] = [];
  while (rejected < wanted) {
    tried++;
    const made = mutant(text, rng, ORACLE_MUTATORS, 'yaml', (source) => ({ text: source, at: rng.int(source.length) }));
    const verdict = await pnpmVerdict(made.bytes, join(dir, String(tried)));
    let ours: LockfileSlices | undefined;
    let refusal = '';
    try {
      ours = slice(made.bytes, join(dir, String(tried)));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === undefined) throw error;
      refusal = `${code}: ${(error as Error).message.replace(/^.*? (?:is broken: |uses )/, '').replace(/ \(line \d+, column \d+\).*$/, '')}`;
    }
    rmSync(join(dir, String(tried)), { recursive: true, force: true });
    if (!verdict.accepts) {
      rejected++;
      if (ours !== undefined) rejectedButSliced++, offenders.push(`rejected but sliced: ${made.mutator}`);
    } else {
      accepted++;
      if (ours === undefined) acceptedButRefused[refusal] = (acceptedButRefused[refusal] ?? 0) + 1;
      else if (sameReach(ours, verdict.main) === undefined) acceptedSameReach++;
      else acceptedOtherReach++, offenders.push(`other reach: ${made.mutator}`);
    }
  }
  return {
    tried,
    rejected,
    rejectedButSliced,
    accepted,
    acceptedSameReach,
    acceptedOtherReach,
    acceptedButRefused,
    offenders,
  };
}
