// The slice report of a moved lockfile: verify/status say which projects' slices changed and how, from
// the bytes the snapshot kept in the ledger and the file now; gaps are values, not errors.

import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findRun } from '../../lib/ledger/find-run.js';
import { describeLockfileMove } from '../../lib/ledger/slice-report.js';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/fixtures.js';
import { pnpmProjects, tempWorkspace } from '../helpers/workspace.js';

const lock = (version: string): string => `lockfileVersion: '9.0'

importers:

  .: {}

  packages/a:
    dependencies:
      b:
        specifier: workspace:*
        version: link:../b

  packages/b:
    dependencies:
      is-number:
        specifier: ${version}
        version: ${version}

  packages/c: {}

packages:

  is-number@6.0.0:
    resolution: {integrity: sha512-six}

  is-number@7.0.0:
    resolution: {integrity: sha512-seven}

snapshots:

  is-number@6.0.0: {}

  is-number@7.0.0: {}
`;

async function snapshotted(t: Parameters<typeof tempWorkspace>[0]): Promise<string> {
  const root = tempWorkspace(t, pnpmProjects(lock('7.0.0'), { a: 'a', b: 'b', c: 'c' }));
  assert.equal((await cli(['snapshot'], root)).code, 0);
  return root;
}

test('verify --json and status --json carry the slice diff of a moved lockfile', async (t) => {
  const root = await snapshotted(t);
  writeFileSync(join(root, 'pnpm-lock.yaml'), lock('6.0.0'));
  const verify = await cli(['verify', '--json'], root);
  assert.equal(verify.code, 1);
  const verdict = JSON.parse(verify.stdout) as {
    slices: {
      lockfile: string;
      gap: null;
      diff: { changed: { importer: string; name: string; packages: unknown[] }[]; unchanged: number };
    }[];
  };
  assert.equal(verdict.slices.length, 1);
  const [move] = verdict.slices;
  assert.equal(move?.lockfile, 'pnpm-lock.yaml');
  assert.deepEqual(
    move?.diff.changed.map((change) => [change.importer, change.name]),
    [
      ['packages/b', 'b'],
      ['packages/a', 'a'],
    ],
  );
  assert.deepEqual(move?.diff.changed[1]?.packages, [
    { name: 'is-number', kind: 'changed', from: ['7.0.0'], to: ['6.0.0'] },
  ]);
  assert.equal(move?.diff.unchanged, 2);
  const status = JSON.parse((await cli(['status', '--json'], root)).stdout) as { slices: typeof verdict.slices };
  assert.deepEqual(status.slices, verdict.slices);
  // The text forms carry one line each.
  assert.equal(
    (await cli(['verify'], root)).stderr.split('\n').filter((line) => line.includes('pnpm-lock.yaml moved:')).length,
    1,
  );
  assert.equal((await cli(['status'], root)).stdout.split('\n').filter((line) => line.startsWith('slices ')).length, 1);
});

test('describeLockfileMove: undefined while unmoved; gaps when the old bytes are gone, the file is removed or broken', async (t) => {
  const root = await snapshotted(t);
  const { record } = findRun(root, undefined, undefined);
  assert.equal(await describeLockfileMove(record, root), undefined);
  writeFileSync(
    join(root, 'pnpm-lock.yaml'),
    readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8').replace('sha512-seven', 'sha512-other'),
  );
  const moved = await describeLockfileMove(record, root);
  assert.deepEqual(
    moved?.diff?.changed.map((change) => change.contentChanged),
    [['is-number'], ['is-number']],
  );
  writeFileSync(join(root, 'pnpm-lock.yaml'), `${lock('7.0.0')}<<<<<<< HEAD\n`);
  assert.equal((await describeLockfileMove(record, root))?.gap, 'lockfile-unreadable');
  rmSync(join(root, 'pnpm-lock.yaml'));
  assert.equal((await describeLockfileMove(record, root))?.gap, 'lockfile-removed');
  writeFileSync(join(root, 'pnpm-lock.yaml'), lock('6.0.0'));
  rmSync(join(root, '.lockguard', 'blobs'), { recursive: true });
  assert.equal((await describeLockfileMove(record, root))?.gap, 'old-bytes-not-kept');
});

test('a pnpm 8 lockfile (v6) that moved: verify --json carries its slice diff too', async (t) => {
  const v6 = readFileSync(
    join(repoRoot(), 'test', 'core', 'slices', 'fixtures', 'pnpm8-registry', 'pnpm-lock.yaml'),
    'utf8',
  );
  const root = tempWorkspace(t, pnpmProjects(v6, { app: '@w/app', lib: '@w/lib', tool: '@w/tool' }));
  assert.equal((await cli(['snapshot'], root)).code, 0);
  writeFileSync(
    join(root, 'pnpm-lock.yaml'),
    v6.replaceAll('/ms@2.1.2:', '/ms@2.1.3:').replaceAll('ms: 2.1.2', 'ms: 2.1.3'),
  );
  const verify = await cli(['verify', '--json'], root);
  assert.equal(verify.code, 1);
  const [move] = (
    JSON.parse(verify.stdout) as {
      slices: {
        gap: string | null;
        diff: { changed: { importer: string; packages: unknown[] }[]; hoisted: string[]; unchanged: number };
      }[];
    }
  ).slices;
  assert.equal(move?.gap, null);
  assert.deepEqual(
    move?.diff.changed.map((change) => change.importer),
    ['packages/app', 'packages/lib'],
  );
  assert.deepEqual(move?.diff.changed[0]?.packages, [{ name: 'ms', kind: 'changed', from: ['2.1.2'], to: ['2.1.3'] }]);
  // The root and tool install packages whose code resolves the hoisted pool: their reach moved (core/slices/reach.ts).
  assert.deepEqual(move?.diff.hoisted, ['.', 'packages/tool']);
  assert.equal(move?.diff.unchanged, 0);
});

test("status shows the slice line of the run's report after the lockfile is back", async (t) => {
  const root = await snapshotted(t);
  // A run whose command moves the lockfile (b's is-number 7.0.0 -> 6.0.0); afterwards the file is put back.
  const moving = `require('fs').writeFileSync('pnpm-lock.yaml', ${JSON.stringify(lock('6.0.0'))})`;
  const run = await cli(['run', '--no-pre-check', '--', process.execPath, '-e', moving], root);
  const line =
    'slices   pnpm-lock.yaml moved: the slices of 2 projects changed: packages/b (is-number 7.0.0 \u2192 6.0.0), packages/a (through its dependencies: is-number 7.0.0 \u2192 6.0.0); 2 other projects unchanged';
  assert.equal(
    (await cli(['status'], root)).stdout.split('\n').find((text) => text.startsWith('slices ')),
    line,
    run.stderr,
  );
  writeFileSync(join(root, 'pnpm-lock.yaml'), lock('7.0.0'));
  const status = await cli(['status'], root);
  assert.equal(
    status.stdout.split('\n').find((text) => text.startsWith('slices ')),
    line,
    status.stdout,
  );
  const json = JSON.parse((await cli(['status', '--json'], root)).stdout) as { slices: { text: string }[] };
  assert.deepEqual(
    json.slices.map((move) => move.text),
    [line.slice('slices   '.length)],
  );
});
