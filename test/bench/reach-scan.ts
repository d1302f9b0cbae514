// Design B's input (issue 29), made by hand, never by the suite: for every package version in every revision
// of `../shared/fixtures/history/{vue-core,astro}`, the bare names its code requires without declaring them,
// read from its real tarball on the npm registry, written to test/bench/reach-phantoms.tsv (the bench reads
// that file offline).
//
// Run: `npm run build && node dist/test/bench/reach-scan.js [--jobs 6]`. Progress is kept in
// $TMPDIR/lockguard-reach-scan/results.jsonl so an interrupted scan resumes; the tarballs are never stored.
// Owns: the tarball fetch (integrity checked against the lockfile's `resolution.integrity` before anything is
// read), the tar reader (ustar, pax and GNU long names), and the static scan (reach-scan-code.ts).
// Invariants: a tarball whose bytes do not match its integrity is an error line, never scanned; a package
// the scan could not read is absent from the map (the bench then folds the whole pool for its projects).

import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { type PackageScan, scanPackage } from './reach-scan-code.js';

const REGISTRY = 'https://registry.npmjs.org';
const REPOS = ['vue-core', 'astro'] as const;
const HERE = fileURLToPath(new URL('.', import.meta.url));
const REPO_ROOT = join(HERE, '..', '..', '..');
const HISTORY = join(REPO_ROOT, '..', 'shared', 'fixtures', 'history');
const OUT = join(REPO_ROOT, 'test', 'bench', 'reach-phantoms.tsv');
const WORK = join(tmpdir(), 'lockguard-reach-scan');

/** The main document of a (possibly two-document) pnpm lockfile. */
export function mainDocument(text: string): string {
  return (
    text
      .split(/^---[ \t]*$/m)
      .filter((part) => part.trim() !== '')
      .at(-1) ?? ''
  ).replace(/^\r?\n/, '');
}

/** `name@version` -> integrity, for every registry package of a lockfile's `packages:` section. */
export function registryPackages(lockfile: string): Map<string, string> {
  const doc = mainDocument(lockfile);
  const start = doc.indexOf('\npackages:');
  const end = doc.indexOf('\nsnapshots:');
  const section = start === -1 ? '' : doc.slice(start, end === -1 ? undefined : end);
  const out = new Map<string, string>();
  for (const match of section.matchAll(/^ {2}'?([^\s']+?)'?:\n {4}resolution: \{([^}]*)\}/gm)) {
    const [, key, resolution] = match;
    if (key === undefined || resolution === undefined) continue;
    const integrity = /integrity: (sha512-[A-Za-z0-9+/=]+)/.exec(resolution)?.[1];
    if (integrity !== undefined && !resolution.includes('tarball:')) out.set(key, integrity);
  }
  return out;
}

/** The registry's tarball URL for `name@version` (npm's layout: `<name>/-/<unscoped>-<version>.tgz`). */
export function tarballUrl(key: string): string {
  const at = key.indexOf('@', 1);
  const name = key.slice(0, at);
  const version = key.slice(at + 1);
  const base = name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
  return `${REGISTRY}/${name}/-/${base}-${version}.tgz`;
}

/** One tar entry: path (without the tarball's first folder) and bytes, for regular files only. */
export interface TarFile {
  readonly path: string;
  readonly bytes: Buffer;
}

function tarString(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul === -1 ? raw.length : nul).toString('utf8');
}

/** The regular files of an uncompressed tar (ustar, pax `path=` and GNU `L` long names). */
export function readTar(tar: Buffer): TarFile[] {
  const files: TarFile[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const size = Number.parseInt(tarString(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 48);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') longName = body.toString('utf8').replace(/\0.*$/s, '');
    else if (type === 'x') longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1] ?? longName;
    else if (type === '0' || type === '\0' || type === '7') {
      const prefix = tarString(header, 345, 155);
      const name = longName ?? (prefix === '' ? tarString(header, 0, 100) : `${prefix}/${tarString(header, 0, 100)}`);
      files.push({ path: name.replace(/^[^/]*\//, ''), bytes: Buffer.from(body) });
      longName = undefined;
    } else longName = undefined;
  }
  return files;
}

async function download(url: string): Promise<Buffer> {
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(180_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

interface ScanLine extends Partial<PackageScan> {
  readonly key: string;
  readonly integrity: string;
  readonly error?: string;
}

async function scanOne(key: string, integrity: string): Promise<ScanLine> {
  try {
    const bytes = await download(tarballUrl(key));
    const got = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
    if (got !== integrity) return { key, integrity, error: `integrity mismatch: ${got}` };
    return { key, integrity, ...scanPackage(key, readTar(gunzipSync(bytes))) };
  } catch (error) {
    return { key, integrity, error: String(error instanceof Error ? error.message : error) };
  }
}

function wanted(): Map<string, string> {
  const all = new Map<string, string>();
  for (const repo of REPOS) {
    const dir = join(HISTORY, repo);
    for (const file of readdirSync(dir).filter((name) => /^\d+-.*\.yaml$/.test(name)))
      for (const [key, integrity] of registryPackages(readFileSync(join(dir, file), 'utf8'))) all.set(key, integrity);
  }
  return all;
}

function done(results: string): Map<string, ScanLine> {
  const out = new Map<string, ScanLine>();
  if (!existsSync(results)) return out;
  for (const line of readFileSync(results, 'utf8').split('\n')) {
    if (line === '') continue;
    const scan = JSON.parse(line) as ScanLine;
    if (scan.error === undefined || !out.has(scan.key)) out.set(scan.key, scan);
  }
  return out;
}

const cell = (names: readonly string[] | undefined): string => (names ?? []).join(',') || '-';

function writeMap(all: Map<string, string>, scans: Map<string, ScanLine>): void {
  const keys = [...all.keys()].sort();
  const ok = keys.filter((key) => scans.get(key)?.error === undefined && scans.has(key));
  const lines = [
    '# lockguard reach-phantoms/1: design B input (issue 29), made by test/bench/reach-scan.ts',
    `# made ${new Date().toISOString()} from ${REGISTRY} tarballs, each checked against the lockfile's resolution.integrity (sha512) before it was read`,
    `# packages: every registry package version of every revision of ../shared/fixtures/history/{${REPOS.join(',')}}: ${keys.length}, scanned ${ok.length}`,
    '# columns: name@version, undeclared (bare names its code requires minus dependencies, optionalDependencies, peerDependencies, bundled, its own name, Node builtins),',
    '#          peers-required (peerDependencies names its code requires: undeclared where the lockfile leaves the peer unresolved), dynamic (files with a computed require/import)',
    ...ok.map((key) => {
      const scan = scans.get(key) as ScanLine;
      return `${key}\t${cell(scan.undeclared)}\t${cell(scan.peersRequired)}\t${scan.dynamicFiles ?? 0}`;
    }),
  ];
  writeFileSync(OUT, `${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const jobsArg = process.argv.indexOf('--jobs');
  const jobs = jobsArg === -1 ? 6 : Number(process.argv[jobsArg + 1]);
  mkdirSync(WORK, { recursive: true });
  const results = join(WORK, 'results.jsonl');
  const all = wanted();
  const scans = done(results);
  const todo = [...all].filter(([key]) => scans.get(key)?.error !== undefined || !scans.has(key));
  console.log(`${all.size} package versions, ${todo.length} to scan`);
  let next = 0;
  let finished = 0;
  const worker = async (): Promise<void> => {
    for (let item = todo[next++]; item !== undefined; item = todo[next++]) {
      const scan = await scanOne(item[0], item[1]);
      scans.set(scan.key, scan);
      appendFileSync(results, `${JSON.stringify(scan)}\n`);
      if (++finished % 100 === 0 || scan.error !== undefined)
        console.log(`${finished}/${todo.length}${scan.error === undefined ? '' : ` ${scan.key}: ${scan.error}`}`);
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  writeMap(all, scans);
  const errors = [...all.keys()].filter((key) => scans.get(key)?.error !== undefined);
  console.log(`wrote ${OUT}; ${errors.length} not scanned${errors.length ? `: ${errors.join(' ')}` : ''}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
