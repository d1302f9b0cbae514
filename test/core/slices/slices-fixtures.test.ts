// Slices on the real lockfiles of public monorepos: every importer gets a slice, the env document of pnpm
// 12's two-document form is no project, and a one-entry change changes exactly the slices that reach it
// (reach computed independently: a naive walk over @pnpm/lockfile-file's parse, or over the npm JSON).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { diffSlices, slicesFromLockfile, type LockfileSlices } from '../../../lib/core/slices/index.js';
import { fixturesDir, fixtureTable } from '../../helpers/fixtures.js';
import { mainDocument, npmReach, parseWithPnpm, pnpmReach, type NpmEntry } from '../../helpers/slices-reach.js';

const rows = fixtureTable().filter((row) => row.format.startsWith('pnpm') || row.format.startsWith('npm'));
const lockfiles = fixturesDir();

function slicesOf(row: (typeof rows)[number], text: string): LockfileSlices {
  const name = row.lockfile.endsWith('package-lock.json') ? 'package-lock.json' : 'pnpm-lock.yaml';
  const root = join(lockfiles, row.lockfile, '..');
  return slicesFromLockfile(Buffer.from(text), { lockfile: name, root });
}

function changedImporters(before: LockfileSlices, after: LockfileSlices): string[] {
  const old = new Map(before.slices.map((slice) => [slice.importer, slice.digest]));
  return after.slices
    .filter((slice) => old.get(slice.importer) !== slice.digest)
    .map((slice) => slice.importer)
    .sort();
}

/** The reached target that splits the importers most evenly (reached by some, not all). */
function splitter(reach: Map<string, Set<string>>, accept: (node: string) => boolean): string | undefined {
  const counts = new Map<string, number>();
  for (const nodes of reach.values())
    for (const node of nodes) if (accept(node)) counts.set(node, (counts.get(node) ?? 0) + 1);
  let best: string | undefined;
  let bestScore = -1;
  for (const [node, count] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const score = Math.min(count, reach.size - count);
    if (score > bestScore) [best, bestScore] = [node, score];
  }
  return best;
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-slices-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Insert a field into the snapshot entry `key` of a pnpm lockfile's main document. */
function touchSnapshot(text: string, key: string): string {
  const start = text.lastIndexOf('\nsnapshots:\n');
  for (const header of [`\n  ${key}:`, `\n  '${key.replaceAll("'", "''")}':`]) {
    const at = text.indexOf(header, start);
    if (at === -1) continue;
    const end = text.indexOf('\n', at + 1);
    const line = text.slice(at + 1, end);
    const field = '\n    deprecated: lockguard-test';
    return text.slice(0, at + 1) + line.replace(/: \{\}$/, ':') + field + text.slice(end);
  }
  throw new Error(`snapshot ${key} not found`);
}

/** Change the version of dependency `dep` of importer `id` to `version`; returns the new text. */
function setImporterVersion(text: string, id: string, dep: string, version: string): string {
  const lines = text.split('\n');
  const importersAt = lines.lastIndexOf('importers:');
  const header = lines.findIndex((line, i) => i > importersAt && (line === `  ${id}:` || line === `  '${id}':`));
  assert.ok(header > 0, `importer ${id} found`);
  for (let i = header + 1; i < lines.length && !/^ {0,2}\S/.test(lines[i] ?? ''); i++) {
    if (lines[i] === `      ${dep}:` || lines[i] === `      '${dep}':`) {
      const at = lines.findIndex((line, j) => j > i && line.startsWith('        version: '));
      lines[at] = `        version: ${version}`;
      return lines.join('\n');
    }
  }
  throw new Error(`dependency ${dep} of ${id} not found`);
}

for (const row of rows) {
  const pnpm = row.format.startsWith('pnpm');
  test(`${row.folder}: one slice per importer, as the fixture table counts them`, () => {
    const text = readFileSync(join(lockfiles, row.lockfile), 'utf8');
    const result = slicesOf(row, text);
    assert.equal(result.slices.length, row.importers);
    assert.equal(
      new Set(result.slices.map((slice) => slice.digest)).size,
      result.slices.length,
      'every project has its own digest',
    );
    for (const slice of result.slices) assert.match(slice.digest, /^[0-9a-f]{64}$/);
    assert.deepEqual(slicesOf(row, text).slices, result.slices, 'deterministic');
  });

  if (pnpm) {
    test(`${row.folder}: importers agree with @pnpm/lockfile-file; the env document is no project`, async (t) => {
      const text = readFileSync(join(lockfiles, row.lockfile), 'utf8');
      const parsed = await parseWithPnpm(tempDir(t), text);
      const result = slicesOf(row, text);
      assert.deepEqual(
        result.slices.map((slice) => slice.importer),
        Object.keys(parsed.importers).sort(),
      );
      // Only the main document counts: the same file without its env document gives the same slices.
      assert.deepEqual(slicesOf(row, mainDocument(text)).slices, result.slices);
      assert.equal(text !== mainDocument(text), row.documents === 2);
    });

    test(`${row.folder}: a changed snapshot changes exactly the slices that reach it`, async (t) => {
      const text = readFileSync(join(lockfiles, row.lockfile), 'utf8');
      const reach = pnpmReach(await parseWithPnpm(tempDir(t), text));
      const target = splitter(reach, (node) => node.startsWith('pkg:'));
      assert.ok(target !== undefined);
      const key = target.slice('pkg:'.length);
      const before = slicesOf(row, text);
      const after = slicesOf(row, touchSnapshot(mainDocument(text), key));
      const expected = [...reach]
        .filter(([, nodes]) => nodes.has(target))
        .map(([id]) => id)
        .sort();
      assert.ok(expected.length > 0);
      assert.deepEqual(changedImporters(before, after), expected);
      const diff = diffSlices(before, after);
      // The reach (core/slices/reach.ts): every other project that installs a package resolves the hoisted pool.
      const installs = [...reach]
        .filter(([id, nodes]) => !expected.includes(id) && [...nodes].some((node) => node.startsWith('pkg:')))
        .map(([id]) => id)
        .sort();
      assert.deepEqual([...diff.hoisted].sort(), installs);
      assert.equal(diff.unchanged, before.slices.length - expected.length - installs.length);
      for (const change of diff.changed) {
        assert.deepEqual(change.packages, []);
        assert.equal(change.entryChanged, false);
        assert.ok(change.contentChanged.length === 1, `${change.importer}: one package's entry changed`);
      }
    });

    test(`${row.folder}: one importer's changed dependency version changes exactly the slices that reach that importer`, async (t) => {
      const text = mainDocument(readFileSync(join(lockfiles, row.lockfile), 'utf8'));
      const parsed = await parseWithPnpm(tempDir(t), text);
      const reach = pnpmReach(parsed);
      const target = splitter(
        reach,
        (node) =>
          node.startsWith('importer:') &&
          Object.values(
            parsed.importers[node.slice(9)]?.dependencies ?? parsed.importers[node.slice(9)]?.devDependencies ?? {},
          ).some((ref) => !ref.startsWith('link:')),
      );
      assert.ok(target !== undefined);
      const id = target.slice('importer:'.length);
      const entry = parsed.importers[id] ?? {};
      const deps = { ...entry.devDependencies, ...entry.dependencies };
      const [dep, ref] = Object.entries(deps).find(([, value]) => !value.startsWith('link:')) ?? ['', ''];
      // Another locked version of the same package when there is one, else a version nothing locks.
      const other = Object.keys(parsed.packages ?? {}).find(
        (key) =>
          key.startsWith(`${dep}@`) &&
          !key.startsWith(`${dep}@${ref.split('(')[0]}`) &&
          !key.slice(dep.length + 1).includes('@'),
      );
      const version = other === undefined ? '0.0.0-lockguard-test' : other.slice(dep.length + 1);
      const before = slicesOf(row, text);
      const after = slicesOf(row, setImporterVersion(text, id, dep, version));
      const expected = [...reach]
        .filter(([, nodes]) => nodes.has(target))
        .map(([importer]) => importer)
        .sort();
      assert.deepEqual(changedImporters(before, after), expected);
      const change = diffSlices(before, after).changed.find((candidate) => candidate.importer === id);
      assert.equal(change?.entryChanged, true);
    });
  } else {
    test(`${row.folder}: a changed package entry changes exactly the projects that resolve to it`, () => {
      const text = readFileSync(join(lockfiles, row.lockfile), 'utf8');
      const lock = JSON.parse(text) as { packages: Record<string, NpmEntry> };
      const reach = npmReach(lock.packages);
      const target = splitter(
        reach,
        (node) => node.includes('node_modules/') && lock.packages[node]?.version !== undefined,
      );
      assert.ok(target !== undefined);
      const entry = lock.packages[target] as { version: string };
      const was = entry.version;
      entry.version = `${was}-lockguard-test`;
      const before = slicesOf(row, text);
      const after = slicesOf(row, JSON.stringify(lock, null, 2));
      const expected = [...reach]
        .filter(([, nodes]) => nodes.has(target))
        .map(([id]) => id)
        .sort();
      assert.ok(expected.length > 0 && expected.length < reach.size);
      assert.deepEqual(changedImporters(before, after), expected);
      const name = target.slice(target.lastIndexOf('node_modules/') + 'node_modules/'.length);
      for (const change of diffSlices(before, after).changed) {
        assert.deepEqual(change.packages.find((pkg) => pkg.name === name)?.to.includes(`${was}-lockguard-test`), true);
      }
    });
  }
}
