// Per-project slice files (ledger/slice-files.ts, ledger/slice-pass.ts): what is written, when nothing is, what is
// removed and what is refused.

import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { projectSlices } from '../../lib/core/slices/slices.js';
import { SLICE_FILE, SLICE_FILE_VERSION, sliceFileText } from '../../lib/ledger/slice-files.js';
import { expectedSliceFiles, writeSliceFiles, writeSliceFilesSync } from '../../lib/ledger/slice-pass.js';
import { codeOf } from '../helpers/errors.js';
import { pnpmProjects, tempWorkspace } from '../helpers/workspace.js';

const LOCK = `lockfileVersion: '9.0'

importers:

  .:
    devDependencies:
      tool:
        specifier: 1.0.0
        version: 1.0.0

  packages/a:
    dependencies:
      b:
        specifier: workspace:*
        version: link:../b

  packages/b:
    dependencies:
      is-number:
        specifier: 7.0.0
        version: 7.0.0

  packages/c: {}

packages:

  is-number@7.0.0:
    resolution: {integrity: sha512-seven}

  tool@1.0.0:
    resolution: {integrity: sha512-tool}

snapshots:

  is-number@7.0.0: {}

  tool@1.0.0: {}
`;

function workspace(t: Parameters<typeof tempWorkspace>[0]): string {
  return tempWorkspace(t, pnpmProjects(LOCK, { a: 'a', b: 'b', c: 'c' }));
}

const fileOf = (root: string, importer: string) => join(root, importer, SLICE_FILE);
const textOf = (root: string, importer: string) => readFileSync(fileOf(root, importer), 'utf8');

test("every project gets its slice digest and the root importer's, in the documented format; the root gets its own only", async (t) => {
  const root = workspace(t);
  const pass = await writeSliceFiles(root);
  assert.equal(pass?.kind, 'written');
  assert.deepEqual(pass?.kind === 'written' ? pass.created : [], ['.', 'packages/a', 'packages/b', 'packages/c']);
  const all = projectSlices(root);
  const digests = new Map(all.slices.map((slice) => [slice.importer, slice.digest]));
  // The root, a (through b) and b install packages: their files fold the hoisted pool (reach); c installs none.
  assert.equal(
    textOf(root, 'packages/b'),
    `${SLICE_FILE_VERSION}\nimporter packages/b\nslice ${digests.get('packages/b')}\nroot ${digests.get('.')}\nreach ${all.pool}\n`,
  );
  assert.equal(textOf(root, '.'), `${SLICE_FILE_VERSION}\nimporter .\nslice ${digests.get('.')}\nreach ${all.pool}\n`);
  assert.equal(
    textOf(root, 'packages/a'),
    sliceFileText('packages/a', digests.get('packages/a') ?? '', digests.get('.'), all.pool),
  );
  assert.equal(
    textOf(root, 'packages/c'),
    `${SLICE_FILE_VERSION}\nimporter packages/c\nslice ${digests.get('packages/c')}\nroot ${digests.get('.')}\n`,
  );
});

test('nothing changed: no file is rewritten (same inode and ctime), and a new lockfile rewrites only the slices it moved', async (t) => {
  const root = workspace(t);
  await writeSliceFiles(root);
  // The same lockfile: the record answers (no pass), nothing is touched.
  assert.deepEqual(await writeSliceFiles(root), { kind: 'current' });
  // A file removed by hand is noticed by the stat check, and only it is written back.
  rmSync(fileOf(root, 'packages/c'));
  const back = await writeSliceFiles(root);
  assert.deepEqual(back?.kind === 'written' ? [back.created, back.changed, back.unchanged] : undefined, [
    ['packages/c'],
    [],
    3,
  ]);
  const cBack = statSync(fileOf(root, 'packages/c'));
  // is-number re-resolved: b's slice moves, and a's (a links b); the root's reach through hoisting (it installs
  // tool, whose code resolves the hoisted pool); c, which installs nothing, stays as it was.
  writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK.replace('sha512-seven', 'sha512-other'));
  const moved = writeSliceFilesSync(root);
  assert.deepEqual(moved?.kind === 'written' ? moved.changed : undefined, ['.', 'packages/a', 'packages/b']);
  assert.equal(statSync(fileOf(root, 'packages/c')).ino, cBack.ino);
  assert.equal(statSync(fileOf(root, 'packages/c')).ctimeMs, cBack.ctimeMs);
  // A root devDependency bump changes every project's file (the root's bins reach every script).
  writeFileSync(
    join(root, 'pnpm-lock.yaml'),
    LOCK.replace('sha512-seven', 'sha512-other').replace('sha512-tool', 'sha512-tool2'),
  );
  const rootMoved = await writeSliceFiles(root);
  assert.deepEqual(rootMoved?.kind === 'written' ? rootMoved.changed : undefined, [
    '.',
    'packages/a',
    'packages/b',
    'packages/c',
  ]);
});

test('a project that left the workspace loses its file; a file lockguard did not write, or one the record names outside, is never removed', async (t) => {
  const root = workspace(t);
  await writeSliceFiles(root);
  // c leaves the lockfile; its folder stays.
  writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK.replace('\n  packages/c: {}\n', '\n'));
  const pass = await writeSliceFiles(root);
  assert.deepEqual(pass?.kind === 'written' ? pass.removed : undefined, ['packages/c']);
  assert.equal(existsSync(fileOf(root, 'packages/c')), false);
  // A forged record naming a user's file (not a slice file's text) and a place outside: both stay.
  mkdirSync(join(root, 'packages', 'd'));
  writeFileSync(fileOf(root, 'packages/d'), 'my own notes\n');
  const outside = tempWorkspace(t, { [SLICE_FILE]: `${SLICE_FILE_VERSION}\nimporter .\nslice x\n` });
  const record = JSON.parse(readFileSync(join(root, '.lockguard', 'slice-files.json'), 'utf8')) as {
    digest: string | null;
    files: object[];
  };
  const file = { dev: 0, ino: 0, size: 0, ctimeMs: 0 };
  record.digest = null;
  record.files.push(
    { importer: 'packages/d', ...file },
    { importer: `../${outside.split('/').at(-1)}`, ...file },
    { importer: outside, ...file },
  );
  writeFileSync(join(root, '.lockguard', 'slice-files.json'), JSON.stringify(record));
  const again = await writeSliceFiles(root);
  assert.deepEqual(again?.kind === 'written' ? again.removed : undefined, []);
  assert.equal(readFileSync(fileOf(root, 'packages/d'), 'utf8'), 'my own notes\n');
  assert.equal(existsSync(join(outside, SLICE_FILE)), true);
});

test('a FIFO, a folder or a link where the file belongs, and a project folder linked outside the workspace, are setup errors naming the path; the other projects are still written', async (t) => {
  for (const [what, make, code] of [
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path]), 'ERR_LOCKGUARD_NOT_A_FILE'],
    ['a folder', (path: string) => mkdirSync(path), 'ERR_LOCKGUARD_NOT_A_FILE'],
    ['a link', (path: string) => symlinkSync('/etc/hostname', path), 'ERR_LOCKGUARD_NOT_A_FILE'],
  ] as const) {
    const root = workspace(t);
    make(fileOf(root, 'packages/b'));
    const error = await writeSliceFiles(root).then(
      () => assert.fail(`${what}: expected a setup error`),
      (caught: { code?: string; path?: string }) => caught,
    );
    assert.equal(error.code, code, what);
    assert.equal(error.path, fileOf(root, 'packages/b'), what);
    assert.ok(existsSync(fileOf(root, 'packages/a')), `${what}: a still written`);
    assert.equal(lstatSync(fileOf(root, 'packages/b')).isFile(), false, `${what}: left as it was`);
    // The record keeps no digest: the next pass tries again instead of answering "current".
    assert.notDeepEqual(await writeSliceFiles(root).catch(() => 'threw'), { kind: 'current' });
  }
  const root = workspace(t);
  const elsewhere = tempWorkspace(t, { 'package.json': '{"name":"c"}' });
  rmSync(join(root, 'packages', 'c'), { recursive: true });
  symlinkSync(elsewhere, join(root, 'packages', 'c'));
  assert.equal(await codeOf(() => writeSliceFiles(root)), 'ERR_LOCKGUARD_OUTSIDE_WORKSPACE');
  assert.equal(existsSync(join(elsewhere, SLICE_FILE)), false, 'nothing written outside the workspace');
  // A project linked to a folder inside the workspace is written through its real folder.
  const inside = workspace(t);
  mkdirSync(join(inside, 'real-c'));
  rmSync(join(inside, 'packages', 'c'), { recursive: true });
  symlinkSync(join(inside, 'real-c'), join(inside, 'packages', 'c'));
  await writeSliceFiles(inside);
  assert.ok(existsSync(join(inside, 'real-c', SLICE_FILE)));
});

test("expectedSliceFiles (plan's keys-would-change) names exactly what a pass then writes, and writes nothing itself", async (t) => {
  const root = workspace(t);
  const expected = await expectedSliceFiles(root);
  assert.equal(existsSync(fileOf(root, 'packages/a')), false, 'nothing written');
  await writeSliceFiles(root);
  assert.deepEqual([...expected.keys()].sort(), [
    SLICE_FILE,
    `packages/a/${SLICE_FILE}`,
    `packages/b/${SLICE_FILE}`,
    `packages/c/${SLICE_FILE}`,
  ]);
  for (const [file, text] of expected) assert.equal(readFileSync(join(root, file), 'utf8'), text, file);
  writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK.replaceAll('7.0.0', '7.0.1'));
  const moved = await expectedSliceFiles(root);
  assert.notEqual(moved.get(`packages/b/${SLICE_FILE}`), textOf(root, 'packages/b'));
  assert.equal(moved.get(`packages/c/${SLICE_FILE}`), textOf(root, 'packages/c'));
});

test("adoption: a record, or the root project's own file (a fresh clone of committed files), and nothing else; the install hooks' writer follows it; staleSliceFiles names what a pass would change, writing nothing", async (t) => {
  const { sliceFilesAdopted } = await import('../../lib/ledger/slice-files.js');
  const { writeSliceFilesAfterInstall } = await import('../../lib/integrations/slice-files/after-install.js');
  const { staleSliceFiles } = await import('../../lib/ledger/slice-pass.js');
  const root = workspace(t);
  assert.equal(sliceFilesAdopted(root), false);
  assert.equal(writeSliceFilesAfterInstall(root), undefined);
  assert.equal(existsSync(fileOf(root, 'packages/a')), false, 'not adopted: the hook writes nothing');
  // A fresh clone of committed files: the files, no .lockguard/.
  await writeSliceFiles(root);
  rmSync(join(root, '.lockguard'), { recursive: true, force: true });
  assert.equal(sliceFilesAdopted(root), true);
  writeFileSync(fileOf(root, 'packages/a'), 'stale\n');
  rmSync(fileOf(root, 'packages/c'));
  assert.deepEqual(await staleSliceFiles(root), {
    files: [
      '.lockguard-slice',
      'packages/a/.lockguard-slice',
      'packages/b/.lockguard-slice',
      'packages/c/.lockguard-slice',
    ],
    missing: ['packages/c/.lockguard-slice'],
    differ: ['packages/a/.lockguard-slice'],
  });
  assert.equal(textOf(root, 'packages/a'), 'stale\n', 'nothing written');
  assert.equal(writeSliceFilesAfterInstall(root), undefined);
  assert.deepEqual(await staleSliceFiles(root), {
    files: (await staleSliceFiles(root))?.files,
    missing: [],
    differ: [],
  });
  // Without the root's file and the record: not adopted (a folder where the file belongs does not count).
  rmSync(join(root, '.lockguard'), { recursive: true, force: true });
  rmSync(fileOf(root, '.'));
  mkdirSync(fileOf(root, '.'));
  assert.equal(sliceFilesAdopted(root), false);
});
