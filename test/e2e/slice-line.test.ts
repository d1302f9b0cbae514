// The slice line leads with the change the user made (issue 28, the trpc bullet), through the real CLI on a
// workspace the real pnpm 10 installed (offline: a `file:` tarball and workspace links). One install carries
// two edits: project `a`, first in the lockfile, only had its workspace specifier rewritten (`workspace:*` ->
// `workspace:^`: its importer entry changed, no package did), and `z` gained a dependency. `lockguard verify`
// after a snapshot names z's new dependency first, then a's entry.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { packTarball } from '../helpers/tool-shims.js';
import { mustRun, PNPM10 } from '../helpers/tools.js';
import { tempWorkspace } from '../helpers/workspace.js';

const manifest = (name: string, dependencies: Record<string, string> = {}): string =>
  `${JSON.stringify({ name, version: '1.0.0', private: true, dependencies }, null, 2)}\n`;

test('pnpm 10: the slice line names the project that gained a dependency before one whose entry only changed', async (t) => {
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root","private":true,"packageManager":"pnpm@10.34.8"}\n',
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    packages: {
      a: { 'package.json': manifest('a', { c: 'workspace:*' }) },
      c: { 'package.json': manifest('c') },
      z: { 'package.json': manifest('z') },
    },
  });
  packTarball(
    join(root, 'vendor', 'tiny-dep-7.0.0.tgz'),
    join(root, '..', 'src-tiny'),
    { name: 'tiny-dep', version: '7.0.0' },
    "module.exports = '7.0.0';\n",
  );
  const env = isolatedEnv(join(root, '..', 'tmp'));
  mustRun(PNPM10, ['install'], root, env);
  const snapshot = await cli(['snapshot'], root, env);
  assert.equal(snapshot.code, 0, snapshot.stderr);
  writeFileSync(join(root, 'packages', 'a', 'package.json'), manifest('a', { c: 'workspace:^' }));
  writeFileSync(
    join(root, 'packages', 'z', 'package.json'),
    manifest('z', { 'tiny-dep': 'file:../../vendor/tiny-dep-7.0.0.tgz' }),
  );
  mustRun(PNPM10, ['install'], root, env);
  assert.match(readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8'), /specifier: workspace:\^/, "a's entry moved");
  const verify = await cli(['verify'], root, env);
  assert.equal(verify.code, 1, verify.stderr);
  const line = verify.stderr.split('\n').find((text) => text.includes('pnpm-lock.yaml moved:'));
  assert.match(
    line ?? '',
    /the slices of 2 projects changed: packages\/z \(\+tiny-dep file:vendor\/tiny-dep-7\.0\.0\.tgz\), packages\/a \(its importer entry changed\)/,
    verify.stderr,
  );
});
