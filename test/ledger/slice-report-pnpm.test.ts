// The slice report after a real `pnpm --filter b add` (pnpm 10 and 12, offline, local packages): verify
// names the projects whose slices changed and how, and counts the rest.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { repoRoot } from '../helpers/fixtures.js';
import { tempWorkspace } from '../helpers/workspace.js';

const REPO = repoRoot();
const PNPMS: [string, string[]][] = [
  ['pnpm 10', [process.execPath, join(REPO, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs')]],
  ['pnpm 12', [join(REPO, 'node_modules', 'pnpm12', 'pnpm')]],
];

for (const [label, pnpm] of PNPMS) {
  test(`${label}: a rewritten lockfile is described project by project`, (t) => {
    const root = tempWorkspace(t, {
      'package.json': '{"name":"root","private":true}',
      'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
      vendor: {
        'is-number-7': { 'package.json': '{"name":"is-number","version":"7.0.0"}' },
        'is-number-6': { 'package.json': '{"name":"is-number","version":"6.0.0"}' },
      },
      packages: {
        a: { 'package.json': '{"name":"a","version":"1.0.0","dependencies":{"b":"workspace:*"}}' },
        b: {
          'package.json': '{"name":"b","version":"1.0.0","dependencies":{"is-number":"file:../../vendor/is-number-7"}}',
        },
        c: { 'package.json': '{"name":"c","version":"1.0.0"}' },
      },
      home: {},
    });
    const env = isolatedEnv(join(root, 'home'));
    const pm = (...args: string[]) =>
      spawnSync(pnpm[0] as string, [...pnpm.slice(1), ...args, '--offline'], {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
    assert.equal(pm('install').status, 0, 'first install');
    assert.equal(cliProcess(['snapshot'], root, env).code, 0);
    const add = pm('--filter', 'b', 'add', 'is-number@file:../../vendor/is-number-6');
    assert.equal(add.status, 0, add.stderr);
    const verify = cliProcess(['verify', '--json'], root, env);
    assert.equal(verify.code, 1);
    const [move] = (
      JSON.parse(verify.stdout) as {
        slices: {
          diff: { changed: { importer: string; packages: { name: string; kind: string }[] }[]; unchanged: number };
        }[];
      }
    ).slices;
    assert.deepEqual(
      move?.diff.changed.map((change) => change.importer),
      ['packages/b', 'packages/a'],
      'the edited project first',
    );
    for (const change of move?.diff.changed ?? [])
      assert.deepEqual(
        change.packages.map((pkg) => [pkg.name, pkg.kind]),
        [['is-number', 'changed']],
      );
    assert.equal(move?.diff.unchanged, 2);
  });
}
