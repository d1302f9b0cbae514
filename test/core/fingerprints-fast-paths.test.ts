// The fast paths the benchmark asked for keep the table's answers: patch files found by decoding only
// the `patchedDependencies` blocks (npm and yarn lockfiles not searched), conflict markers found without
// a newline-led search, absent entries and missing files told without exceptions, one buffer per read,
// and @pnpm/find-workspace-dir loaded only where a pnpm workspace manifest can be.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { patchPaths } from '../../lib/core/entries.js';
import { probe, readEntry, realFileSystem, type FileSystem } from '../../lib/core/file-probe.js';
import { patchBlocks, patchRegion, readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { checkLockfileShape } from '../../lib/core/lockfile-shape.js';
import { fixturesDir } from '../helpers/fixtures.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const FIXTURES = fixturesDir();

/** What the full scan (every line of the file) finds. */
function fullScan(bytes: Buffer): string[] {
  return patchPaths(bytes.toString('utf8'));
}

function fast(relPath: string, bytes: Buffer): string[] {
  return patchPaths(patchBlocks(patchRegion(relPath, bytes)));
}

test('patch files: the blocks of a pnpm lockfile give what the full scan gives, wherever they are', () => {
  const block = 'patchedDependencies:\n  left-pad@1.3.0:\n    hash: abc\n    path: patches/left-pad@1.3.0.patch\n\n';
  const head = "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n\n";
  const body = 'importers:\n\n  .: {}\n\npackages:\n\n  a@1.0.0:\n    resolution: {integrity: sha512-x}\n';
  const env = "---\nlockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    configDependencies: {}\n\npackages: {}\n\n---\n";
  // Where pnpm writes it (before importers), also in pnpm 12's second document.
  for (const text of [`${head}${block}${body}`, `${env}${head}${block}${body}`]) {
    const bytes = Buffer.from(text);
    assert.deepEqual(fast('pnpm-lock.yaml', bytes), ['patches/left-pad@1.3.0.patch']);
    assert.deepEqual(fast('pnpm-lock.yaml', bytes), fullScan(bytes));
  }
  // A block placed after importers by hand is not where pnpm writes it: only the header is searched.
  assert.deepEqual(fast('pnpm-lock.yaml', Buffer.from(`${head}${body}\n${block}`)), []);
  // The env document's own sections never count, even when they mention patches.
  assert.deepEqual(
    fast('pnpm-lock.yaml', Buffer.from(`---\nlockfileVersion: '9.0'\n\n${block}importers: {}\n\n---\n${head}${body}`)),
    [],
  );
  // Nested mentions are not blocks (as in the full scan).
  const nested = Buffer.from(`${head}importers:\n  .:\n    patchedDependencies:\n      x: patches/x.patch\n`);
  assert.deepEqual(fast('pnpm-lock.yaml', nested), fullScan(nested));
  assert.deepEqual(fast('pnpm-lock.yaml', nested), []);
});

test('patch files: package.json maps (pretty or minified) and workspace manifests are still found', () => {
  const pretty = Buffer.from(
    '{\n  "name": "r",\n  "pnpm": {\n    "patchedDependencies": {\n      "a@1.0.0": "patches/a.patch"\n    }\n  }\n}\n',
  );
  const minified = Buffer.from(
    '{"name":"r","pnpm":{"patchedDependencies":{"a@1.0.0":"patches/a.patch","b@2":"patches/b.patch"}}}',
  );
  const manifest = Buffer.from(
    'packages:\n  - "packages/*"\npatchedDependencies:\n  c@1: patches/c.patch\nonlyBuiltDependencies:\n  - esbuild\n',
  );
  assert.deepEqual(fast('package.json', pretty), ['patches/a.patch']);
  assert.deepEqual(fast('package.json', minified), ['patches/a.patch', 'patches/b.patch']);
  assert.deepEqual(fast('pnpm-workspace.yaml', manifest), ['patches/c.patch']);
  // npm and yarn lockfiles never name patch files: not searched at all.
  assert.equal(patchRegion('package-lock.json', pretty).length, 0);
});

test('patch files: every real fixture gives the same list as the full scan', () => {
  const files = [
    'vite/pnpm-lock.yaml',
    'vite/pnpm-workspace.yaml',
    'vue-core/pnpm-lock.yaml',
    'vue-core/pnpm-workspace.yaml',
    'astro/pnpm-lock.yaml',
  ];
  let named = 0;
  for (const file of files) {
    const bytes = readFileSync(join(FIXTURES, file));
    const name = file.split('/').at(-1) ?? file;
    assert.deepEqual(fast(name, bytes), fullScan(bytes), file);
    named += fullScan(bytes).length;
  }
  assert.ok(named > 0, 'the fixtures do name patch files (the comparison is not vacuous)');
});

test('conflict markers: found at a line start anywhere (line named), not inside a line', () => {
  const shape = (text: string): string | undefined => {
    try {
      checkLockfileShape('/w/pnpm-lock.yaml', 'pnpm-lock.yaml', Buffer.from(text));
      return undefined;
    } catch (error) {
      return `${(error as { code?: string }).code} ${(error as Error).message}`;
    }
  };
  assert.match(shape("<<<<<<< HEAD\nlockfileVersion: '9.0'\n") ?? '', /^ERR_LOCKGUARD_BROKEN_LOCKFILE .*line 1\)/);
  assert.match(shape("lockfileVersion: '9.0'\nimporters:\n>>>>>>> theirs\n") ?? '', /line 3\)/);
  assert.match(shape("lockfileVersion: '9.0'\n<<<<<<<\n") ?? '', /line 2\)/);
  assert.equal(shape("lockfileVersion: '9.0'\n  note: 'a <<<<<<< b >>>>>>> c'\n"), undefined);
});

/** A real file system that counts calls, with fs calls that ignore options (as older injected ones do). */
function countingFs(): { fs: FileSystem; counts: Record<'stat' | 'lstat' | 'open', number> } {
  const counts = { stat: 0, lstat: 0, open: 0 };
  const counting: FileSystem = {
    ...realFileSystem,
    statSync: (path: string) => (counts.stat++, fs.statSync(path)),
    lstatSync: (path: string) => (counts.lstat++, fs.lstatSync(path)),
    openSync: (path: string, flags: number) => (counts.open++, fs.openSync(path, flags)),
  } as FileSystem;
  return { fs: counting, counts };
}

test('the table read opens only entries that exist; absence is found by one lstat', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const { fs: counting, counts } = countingFs();
  const table = readWorkspaceFingerprints(root, { scope: 'full', fs: counting });
  const present = table.entries.filter((entry) => entry.digest !== null).length;
  const absent = table.entries.length - present;
  assert.ok(absent > 0 && present > 0);
  // The root package.json is read too (pnpm patches): one more open.
  assert.equal(counts.open, present + 1);
  assert.equal(counts.lstat, table.entries.length);
});

test('an injected fs that throws ENOENT instead of returning undefined still gives absent', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const { fs: counting } = countingFs();
  assert.deepEqual(probe(counting, join(root, '.pnpmfile.cjs')), { state: 'absent' });
  assert.deepEqual(probe(realFileSystem, join(root, '.pnpmfile.cjs')), { state: 'absent' });
  symlinkSync('gone', join(root, 'dangling'));
  // The watch treats a dangling link where a file was as gone.
  assert.deepEqual(probe(realFileSystem, join(root, 'dangling')), { state: 'absent' });
  // The table read refuses it.
  assert.throws(() => readEntry(realFileSystem, join(root, 'dangling')), { code: 'ERR_LOCKGUARD_DANGLING_LINK' });
});

test('a read uses one buffer of the file size (no doubling at end of file)', (t) => {
  const root = tempWorkspace(t, { 'big.txt': Buffer.alloc(300_000, 97) });
  const result = readEntry(realFileSystem, join(root, 'big.txt'));
  assert.equal(result.state, 'file');
  if (result.state !== 'file') return;
  assert.equal(result.bytes.length, 300_000);
  assert.ok(result.bytes.buffer.byteLength < 2 * 300_000, `buffer of ${result.bytes.buffer.byteLength} bytes`);
});

test('a file that grew or shrank since its fstat is still read whole', (t) => {
  const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
  const root = tempWorkspace(t, { 'file.bin': bytes });
  for (const claimed of [0, 1, 10, 65_536, 199_999, 200_000, 200_001, 1_000_000]) {
    const lying: FileSystem = {
      ...realFileSystem,
      fstatSync: (fd: number) => Object.assign(fs.fstatSync(fd), { size: claimed }),
    } as FileSystem;
    const result = readEntry(lying, join(root, 'file.bin'));
    assert.equal(result.state, 'file');
    if (result.state === 'file') assert.ok(result.bytes.equals(bytes), `claimed size ${claimed}`);
  }
});

function loadsFindWorkspaceDir(dir: string, env: Record<string, string> = {}): { loaded: boolean; root: string } {
  const workspace = fileURLToPath(new URL('../../lib/core/workspace.js', import.meta.url));
  const script = `import { createRequire } from 'node:module';
const { findWorkspace } = await import(${JSON.stringify(workspace)});
const found = await findWorkspace(process.cwd());
const cache = Object.keys(createRequire(import.meta.url).cache);
console.log(JSON.stringify({ root: found.root, loaded: cache.some((path) => path.includes('find-workspace-dir')) }));`;
  const cleanEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_config_workspace_dir$/i.test(name)),
  );
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: dir,
    env: { ...cleanEnv, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as { loaded: boolean; root: string };
}

test('@pnpm/find-workspace-dir is loaded only where its answer is not plain', (t) => {
  const npm = tempWorkspace(t, {
    'package.json': '{"name":"r","workspaces":["packages/*"]}',
    'package-lock.json': '{"lockfileVersion":3}',
  });
  assert.deepEqual(loadsFindWorkspaceDir(npm), { root: npm, loaded: false });
  // A plain pnpm-workspace.yaml (a regular file, no other manifest name next to it): answered without it.
  const pnpm = tempWorkspace(t, { ...pnpmTree(), packages: { a: { 'package.json': '{"name":"a"}' } } });
  assert.deepEqual(loadsFindWorkspaceDir(join(pnpm, 'packages/a')), { root: pnpm, loaded: false });
  // pnpm's own env override still reaches it.
  assert.equal(loadsFindWorkspaceDir(npm, { NPM_CONFIG_WORKSPACE_DIR: pnpm }).loaded, true);
  // A manifest that is a link: pnpm's package decides.
  const linked = tempWorkspace(t, {
    'package.json': '{"name":"r"}',
    'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    'real.yaml': 'packages: []\n',
  });
  symlinkSync('real.yaml', join(linked, 'pnpm-workspace.yaml'));
  assert.deepEqual(loadsFindWorkspaceDir(linked), { root: linked, loaded: true });
});

test('a misnamed pnpm workspace manifest is still refused', async (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"name":"r"}', 'pnpm-workspace.yml': 'packages: []\n' });
  const { findWorkspace } = await import('../../lib/core/workspace.js');
  await assert.rejects(findWorkspace(root), { code: 'ERR_LOCKGUARD_NOT_A_WORKSPACE' });
});
