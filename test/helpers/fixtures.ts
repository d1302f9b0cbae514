// The shared real-lockfile fixtures: `<repo>/../shared/fixtures/lockfiles/` (never edited: copy first).
//
// Located relative to the repository, never by an absolute path, so CI finds them next to its checkout.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder up from this file whose package.json is lockguard's. */
export function repoRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'lockguard') return dir;
    if (dirname(dir) === dir) throw new Error('lockguard repository root not found above the test file');
  }
}

/** `<repo>/../shared/fixtures` (LOCKGUARD_FIXTURES overrides it). Throws when missing: fixture tests must not pass vacuously. */
export function fixturesDir(): string {
  const dir = process.env['LOCKGUARD_FIXTURES'] ?? join(repoRoot(), '..', 'shared', 'fixtures');
  if (!existsSync(join(dir, 'lockfiles'))) throw new Error(`fixtures not found at ${dir}/lockfiles (set LOCKGUARD_FIXTURES)`);
  return dir;
}

export interface FixtureRow {
  /** Folder under lockfiles/. */
  readonly folder: string;
  /** Path of the lockfile relative to lockfiles/. */
  readonly lockfile: string;
  readonly format: string;
  /** Importers (pnpm) or workspaces (npm) as the README table counts them; undefined for '–'. */
  readonly importers: number | undefined;
  readonly documents: number | undefined;
}

/** The README table of the fixtures, parsed (so tests compare against the documented counts, not constants). */
export function fixtureTable(): FixtureRow[] {
  const dir = fixturesDir();
  const rows: FixtureRow[] = [];
  for (const line of readFileSync(join(dir, 'README.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 8 || cells[1] === 'folder' || cells[1]?.startsWith('---')) continue;
    const [, folder = '', file = '', , format = '', importers = '', , documents = ''] = cells;
    const name = file.replace(/^…\//, '');
    const lockfile = file.startsWith('…/') ? findNested(join(dir, 'lockfiles', folder), name) : join(folder, name);
    const count = Number.parseInt(importers.replaceAll(',', ''), 10);
    const docs = Number.parseInt(documents, 10);
    rows.push({ folder, lockfile, format, importers: Number.isNaN(count) ? undefined : count, documents: Number.isNaN(docs) ? undefined : docs });
  }
  return rows;
}

function findNested(base: string, path: string): string {

  const stack = [base];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) stack.push(full);
      else if (full.endsWith(`/${path}`)) return full.slice(join(base, '..').length + 1);
    }
  }
  throw new Error(`${path} not found under ${base}`);
}


