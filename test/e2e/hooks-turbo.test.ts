// The pnpmfile plugin finds the guarded run from inside a turbo task in turbo's default strict env mode,
// which strips LOCKGUARD_RUN from the task (and from the pnpm that turbo starts).

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { liveRun, PACKAGE_ROOT, pnpmCommand, pnpmFixture, spawn } from '../helpers/hooks.js';

test('turbo 2 strict env mode: a task that runs pnpm reports to the live run, though LOCKGUARD_RUN was stripped', (t) => {
  const [file, prefix] = pnpmCommand(10);
  const fixture = pnpmFixture(t, 10, {
    tree: {
      // Settings in a file: turbo strips the npm_config_* variables the fixture sets (store, notifier) too.
      '.npmrc': 'store-dir=../home/store\nupdate-notifier=false\n',
      'turbo.json': `${JSON.stringify({ $schema: 'https://turbo.build/schema.json', tasks: { check: { cache: false } } }, null, 2)}\n`,
      packages: {
        a: {
          'package.json': `${JSON.stringify({ name: 'a', version: '1.0.0', scripts: { noop: 'true', check: 'echo "${LOCKGUARD_RUN:-stripped}" > seen.txt && pnpm install --frozen-lockfile' } }, null, 2)}\n`,
        },
      },
    },
  });
  // turbo wants the package manager declared; it runs scripts with the `pnpm` on PATH.
  const manifest = JSON.parse(fixture.read('package.json').toString()) as Record<string, unknown>;
  writeFileSync(
    join(fixture.root, 'package.json'),
    `${JSON.stringify({ ...manifest, packageManager: 'pnpm@10.34.8' }, null, 2)}\n`,
  );
  const bin = join(fixture.root, '..', 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'pnpm'),
    `#!/bin/sh\nexec ${JSON.stringify(file)} ${prefix.map((word) => JSON.stringify(word)).join(' ')} "$@"\n`,
  );
  chmodSync(join(bin, 'pnpm'), 0o755);
  const run = liveRun(t, fixture.root, 'flag');
  const turbo = join(PACKAGE_ROOT, 'node_modules', 'turbo', 'bin', 'turbo');
  const env = { ...fixture.env, LOCKGUARD_RUN: run.dir, PATH: `${bin}:${fixture.env['PATH'] ?? ''}` };
  const result = spawn(
    process.execPath,
    [turbo, 'run', 'check', '--filter=a', '--cache-dir', join(fixture.root, '..', 'turbo-cache')],
    fixture.root,
    env,
    120_000,
  );
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  {
    // The task really ran without LOCKGUARD_RUN.
    assert.equal(readFileSync(join(fixture.root, 'packages', 'a', 'seen.txt'), 'utf8').trim(), 'stripped');
  }
  {
    // The pnpm inside the task found the run through .lockguard/live.
    const installs = run
      .hookEvents()
      .filter(
        (event) => event['source'] === 'pnpmfile' && event['hook'] === 'updateConfig' && event['command'] === 'install',
      );
    assert.equal(installs.length, 1);
  }
});
