// `lockguard key --project/--projects`: per-project slice digests from the CLI, and its errors.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, cliProcess } from '../../helpers/cli.js';
import { pnpmProjects, tempWorkspace } from '../../helpers/workspace.js';

const LOCK = `lockfileVersion: '9.0'

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
        specifier: 7.0.0
        version: 7.0.0

packages:

  is-number@7.0.0:
    resolution: {integrity: sha512-seven}

snapshots:

  is-number@7.0.0: {}
`;

function workspace(t: Parameters<typeof tempWorkspace>[0]): string {
  return tempWorkspace(t, pnpmProjects(LOCK, { a: 'a', b: 'b' }));
}

test('--projects --json lists every importer with its name and digest; --project picks one by path or name', async (t) => {
  const root = workspace(t);
  const all = await cli(['key', '--projects', '--json'], root);
  assert.equal(all.code, 0);
  const rows = JSON.parse(all.stdout) as { importer: string; name: string | null; digest: string }[];
  assert.deepEqual(
    rows.map((row) => [row.importer, row.name]),
    [
      ['.', 'root'],
      ['packages/a', 'a'],
      ['packages/b', 'b'],
    ],
  );
  const byName = await cli(['key', '--project', 'b'], root);
  const byPath = await cli(['key', '--project', 'packages/b'], join(root, 'packages'));
  assert.equal(byName.code, 0);
  assert.equal(byName.stdout, `${rows[2]?.digest}\n`);
  assert.equal(byPath.stdout, byName.stdout);
  const text = await cli(['key', '--projects'], root);
  assert.equal(text.stdout.split('\n').filter(Boolean).length, 3);
});

test('the table key is untouched by the new flags, and a dependency change moves only the slices that reach it', async (t) => {
  const root = workspace(t);
  const table = await cli(['key'], root);
  assert.match(table.stdout, /^[0-9a-f]{64}\n$/);
  const before = JSON.parse((await cli(['key', '--projects', '--json'], root)).stdout) as { digest: string }[];
  writeFileSync(
    join(root, 'pnpm-lock.yaml'),
    readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8').replace('sha512-seven', 'sha512-other'),
  );
  const after = JSON.parse((await cli(['key', '--projects', '--json'], root)).stdout) as { digest: string }[];
  assert.deepEqual(
    before.map((row, i) => row.digest !== after[i]?.digest),
    [false, true, true],
  );
  assert.notEqual((await cli(['key'], root)).stdout, table.stdout);
});

test('an unknown project is a usage error (exit 2) naming it; both flags at once too', async (t) => {
  const root = workspace(t);
  const missing = cliProcess(['key', '--project', 'nope'], root);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /"nope"/);
  assert.match(missing.stderr, /--projects/);
  const both = await cli(['key', '--project', 'a', '--projects'], root);
  assert.equal(both.code, 2);
});
