// The real-lockfile fixtures kept in the repository: `test/fixtures/lockfiles/<name>/` (never edited: copy first).
//
// Located from the repository root (found by its package.json), so a fresh clone has them; nothing here
// reads a folder outside the repository.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder up from this file whose package.json is lockguard's. */
export function repoRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'lockguard')
      return dir;
    if (dirname(dir) === dir) throw new Error('lockguard repository root not found above the test file');
  }
}

/** `<repo>/test/fixtures/lockfiles`. Throws when missing: fixture tests must not pass vacuously. */
export function fixturesDir(): string {
  const dir = join(repoRoot(), 'test', 'fixtures', 'lockfiles');
  if (!existsSync(join(dir, 'README.md'))) throw new Error(`fixtures not found at ${dir}`);
  return dir;
}

export interface FixtureRow {
  /** Folder under lockfiles/. */
  readonly folder: string;
  /** Path of the lockfile relative to lockfiles/. */
  readonly lockfile: string;
  readonly format: string;
  /** Importers (pnpm) or workspace projects (npm) as the README table counts them. */
  readonly importers: number | undefined;
  /** YAML documents (pnpm); undefined for '–'. */
  readonly documents: number | undefined;
}

/** The README table of the fixtures, parsed (so tests compare against the documented counts, not constants). */
export function fixtureTable(): FixtureRow[] {
  const rows: FixtureRow[] = [];
  for (const line of readFileSync(join(fixturesDir(), 'README.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 11 || cells[1] === 'folder' || cells[1]?.startsWith('---')) continue;
    const [, folder = '', file = '', format = '', importers = '', , documents = ''] = cells;
    const count = Number.parseInt(importers.replaceAll(',', ''), 10);
    const docs = Number.parseInt(documents, 10);
    rows.push({
      folder,
      lockfile: join(folder, file),
      format,
      importers: Number.isNaN(count) ? undefined : count,
      documents: Number.isNaN(docs) ? undefined : docs,
    });
  }
  if (rows.length === 0) throw new Error('no rows in the fixtures README table');
  return rows;
}
