// `lockguard hook` as the npm root prepare script, in a real npm workspace: what it reports, what `refuse`
// can and cannot do with npm (npm runs root scripts only after it wrote the lockfile), and that npm records
// nothing for it in package-lock.json (a root pre/postinstall is recorded as the root's hasInstallScript).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { liveRun, lockguardPackage, spawn, writeTarball, type Spawned } from '../helpers/hooks.js';
import { isolatedEnv } from '../helpers/env.js';
import { tempWorkspace, writeTree } from '../helpers/workspace.js';
import { HOOK_SCRIPT } from '../../lib/integrations/npm/scripts.js';
import { cli } from '../helpers/cli.js';

interface NpmFixture {
  readonly root: string;
  readonly depY: string;
  npm(args: readonly string[]): Spawned;
  read(path: string): Buffer;
}

function npmFixture(
  t: { after(fn: () => void): void },
  options: { lockguard?: boolean; scripts?: boolean } = {},
): NpmFixture {
  const base = tempWorkspace(t, {}, 'lockguard-hooks-npm-');
  const root = join(base, 'ws');
  const depX = writeTarball(join(base, 'dep-x-1.0.0.tgz'), 'dep-x', '1.0.0');
  const depY = writeTarball(join(base, 'dep-y-1.0.0.tgz'), 'dep-y', '1.0.0');
  const lockguard = lockguardPackage(base);
  const env = isolatedEnv(join(base, 'home'), { offline: false });
  mkdirSync(root);
  writeTree(root, {
    'package.json': `${JSON.stringify(
      {
        name: 'root',
        private: true,
        workspaces: ['packages/*'],
        // What lockguard init --npm-scripts writes.
        ...(options.scripts === false ? {} : { scripts: { prepare: HOOK_SCRIPT } }),
        dependencies: { 'dep-x': `file:${depX}` },
        ...(options.lockguard === false ? {} : { devDependencies: { lockguard: `file:${lockguard}` } }),
      },
      null,
      2,
    )}\n`,
    packages: { b: { 'package.json': '{"name":"b","version":"1.0.0"}\n' } },
  });
  const fixture: NpmFixture = {
    root,
    depY,
    npm: (args) => spawn('npm', args, root, env),
    read: (path) => readFileSync(join(root, path)),
  };
  const first = fixture.npm(['install']);
  if (first.code !== 0) throw new Error(`fixture: npm install failed:\n${first.stdout}\n${first.stderr}`);
  return fixture;
}

function lifecycle(events: ReturnType<ReturnType<typeof liveRun>['hookEvents']>): string[] {
  return events
    .filter((event) => event['source'] === 'npm-lifecycle')
    .map(
      (event) => `${String(event['command'])}:${String(event['hook'])}${event['refused'] === true ? ':refused' : ''}`,
    );
}

test('npm: lockguard hook reports npm ci and npm install to the live run, and does nothing outside one', (t) => {
  const fixture = npmFixture(t);
  {
    // Outside a run (the fixture's own install ran the hook twice): nothing was written for lockguard.
    assert.equal(existsSync(join(fixture.root, '.lockguard')), false);
  }
  const run = liveRun(t, fixture.root, 'flag');
  {
    // npm ci and npm install run the root's prepare: each reports.
    for (const command of ['ci', 'install']) {
      const result = fixture.npm([command]);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    }
    assert.deepEqual(lifecycle(run.hookEvents()), ['ci:prepare', 'install:prepare']);
  }
  {
    // npm install <pkg> runs no root script: nothing reaches the run (the run's own checks must catch it).
    const before = fixture.read('package-lock.json');
    const result = fixture.npm(['install', fixture.depY]);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.notDeepEqual(fixture.read('package-lock.json'), before);
    assert.equal(lifecycle(run.hookEvents()).length, 2);
  }
});

test('npm: under refuse, npm install that rewrote the lockfile fails right after; npm ci and a no-op install pass', (t) => {
  const fixture = npmFixture(t);
  const run = liveRun(t, fixture.root, 'refuse');
  {
    // npm ci never writes the lockfile, and a no-op install writes the same bytes: neither is refused.
    for (const command of ['ci', 'install']) {
      const result = fixture.npm([command]);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    }
  }
  {
    // After a manifest edit, npm install rewrites package-lock.json before any root script runs; the hook
    // then fails the command (it cannot un-write it: the run's final check withholds).
    const manifest = JSON.parse(fixture.read('package.json').toString()) as { dependencies: Record<string, string> };
    manifest.dependencies['dep-y'] = `file:${fixture.depY}`;
    writeFileSync(join(fixture.root, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const before = fixture.read('package-lock.json');
    const result = fixture.npm(['install']);
    assert.notEqual(result.code, 0);
    assert.notDeepEqual(fixture.read('package-lock.json'), before);
  }
  assert.deepEqual(lifecycle(run.hookEvents()), ['ci:prepare', 'install:prepare', 'install:prepare:refused']);
});

test('npm: the hook scripts are no-ops where lockguard is not installed (npm ci --omit=dev, a checkout without it), and still report where it is', (t) => {
  {
    // A checkout whose manifest has the hook scripts but not lockguard (yet): npm install succeeds.
    const fixture = npmFixture(t, { lockguard: false });
    const result = fixture.npm(['install']);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.doesNotMatch(result.stderr, /not found|ERR/);
  }
  const fixture = npmFixture(t);
  {
    // A production image: devDependencies (lockguard) left out; the hooks must not fail with 127.
    const result = fixture.npm(['ci', '--omit=dev']);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.equal(
      existsSync(join(fixture.root, 'node_modules', 'lockguard')),
      false,
      'lockguard really is not installed',
    );
  }
  {
    // With lockguard installed again, the same scripts report to a live run.
    assert.equal(fixture.npm(['ci']).code, 0);
    const run = liveRun(t, fixture.root, 'flag');
    const result = fixture.npm(['ci']);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.deepEqual(lifecycle(run.hookEvents()), ['ci:prepare']);
  }
});

test('npm 11.19: init --npm-scripts then npm install leaves package-lock.json byte for byte as it was (no hasInstallScript: no slice moves)', async (t) => {
  const fixture = npmFixture(t, { scripts: false });
  const before = fixture.read('package-lock.json');
  const init = await cli(['init', '--npm-scripts', '--no-sound-keys'], fixture.root, {});
  assert.equal(init.code, 0, init.stderr);
  const run = liveRun(t, fixture.root, 'flag');
  for (const command of ['install', 'ci']) {
    const result = fixture.npm([command]);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.deepEqual(fixture.read('package-lock.json'), before, command);
  }
  assert.doesNotMatch(fixture.read('package-lock.json').toString(), /hasInstallScript/);
  // The hook still runs after both installs.
  assert.deepEqual(lifecycle(run.hookEvents()), ['install:prepare', 'ci:prepare']);
});
