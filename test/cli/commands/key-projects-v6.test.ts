// `lockguard key --project/--projects` on a pnpm 8 workspace (lockfileVersion 6.0): slices through the CLI,
// a broken v6 file and an unknown lockfile version as setup errors naming the path.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { projectSlicesAsync } from '../../../lib/core/slices/index.js';
import { cli, cliProcess } from '../../helpers/cli.js';
import { repoRoot } from '../../helpers/fixtures.js';
import { pnpmProjects, tempWorkspace } from '../../helpers/workspace.js';

const LOCK = readFileSync(
  join(repoRoot(), 'test', 'core', 'slices', 'fixtures', 'pnpm8-registry', 'pnpm-lock.yaml'),
  'utf8',
);

function workspace(t: Parameters<typeof tempWorkspace>[0], lockfile = LOCK): string {
  return tempWorkspace(t, pnpmProjects(lockfile, { app: '@w/app', lib: '@w/lib', tool: '@w/tool' }));
}

type Row = { importer: string; name: string | null; digest: string };

test('--projects --json on a v6 lockfile lists every importer with its name and slice digest; --project picks one', async (t) => {
  const root = workspace(t);
  const all = await cli(['key', '--projects', '--json'], root);
  assert.equal(all.code, 0, all.stderr);
  const rows = JSON.parse(all.stdout) as Row[];
  assert.deepEqual(
    rows.map((row) => [row.importer, row.name]),
    [
      ['.', 'root'],
      ['packages/app', '@w/app'],
      ['packages/lib', '@w/lib'],
      ['packages/tool', '@w/tool'],
    ],
  );
  assert.deepEqual(
    rows.map((row) => row.digest),
    (await projectSlicesAsync(root)).slices.map((slice) => slice.digest),
  );
  // The bundled bin (lockfile-file stays external, imported on demand) prints the same.
  const bin = cliProcess(['key', '--projects', '--json'], root);
  assert.equal(bin.code, 0, bin.stderr);
  assert.deepEqual(JSON.parse(bin.stdout), rows);
  const one = await cli(['key', '--project', '@w/lib'], root);
  assert.equal(one.code, 0);
  assert.equal(one.stdout, `${rows[2]?.digest}\n`);
});

test('a version bump in one closure moves only the slices that reach it, through the CLI', async (t) => {
  const root = workspace(t);
  const before = JSON.parse((await cli(['key', '--projects', '--json'], root)).stdout) as Row[];
  writeFileSync(
    join(root, 'pnpm-lock.yaml'),
    LOCK.replaceAll('/ms@2.1.2:', '/ms@2.1.3:').replaceAll('ms: 2.1.2', 'ms: 2.1.3'),
  );
  const after = JSON.parse((await cli(['key', '--projects', '--json'], root)).stdout) as Row[];
  assert.deepEqual(
    before.map((row, i) => row.digest !== after[i]?.digest),
    [false, true, true, false],
  );
});

test('a broken v6 lockfile and an unknown lockfile version: exit 2 naming the path, no stack; the library codes', async (t) => {
  for (const [lockfile, code] of [
    ["lockfileVersion: '6.0'\n\nimporters:\n  .:\n    dependencies: [x\n", 'ERR_LOCKGUARD_BROKEN_LOCKFILE'],
    ["lockfileVersion: '5.4'\n\nimporters:\n\n  .: {}\n", 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE'],
  ] as const) {
    const root = workspace(t, lockfile);
    const result = await cli(['key', '--projects', '--json'], root);
    assert.equal(result.code, 2);
    assert.ok(result.stderr.includes(join(root, 'pnpm-lock.yaml')), result.stderr);
    assert.doesNotMatch(result.stderr, /^ {4}at /m, 'no stack trace');
    await assert.rejects(projectSlicesAsync(root), { code, path: join(root, 'pnpm-lock.yaml') });
  }
});
