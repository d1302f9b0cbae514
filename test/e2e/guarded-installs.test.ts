// `lockguard run` around real installs (pnpm 10, pnpm 12, npm), through the real bin, with the pnpmfile
// plugin installed as a user has it: what is reported, what `refuse` stops at the source, and no false
// positives for installs that change nothing.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import {
  editManifestOfB,
  installFixturesOncePerFile,
  PNPM_VERSIONS,
  pnpmCommand,
  pnpmFixture,
  spawn,
  writeTarball,
  type PnpmFixture,
  type Spawned,
} from '../helpers/hooks.js';
import { isolatedEnv } from '../helpers/env.js';
import { tempWorkspace, writeTree } from '../helpers/workspace.js';

// One install per pnpm version for the file, a private copy per test (hooks.ts).
installFixturesOncePerFile();

interface Report {
  report: { moved: { files: { path: string }[]; evidence: string } | null; exitCode: number };
  events: { type: string; source?: string; hook?: string; command?: string; refused?: boolean }[];
}

function guarded(
  fixture: { root: string; env: Record<string, string> },
  options: readonly string[],
  command: readonly string[],
  env: Record<string, string> = {},
): Spawned {
  return spawn(process.execPath, [BIN, 'run', ...options, '--', ...command], fixture.root, { ...fixture.env, ...env });
}

function status(fixture: { root: string; env: Record<string, string> }): Report {
  const result = spawn(process.execPath, [BIN, 'status', '--json'], fixture.root, fixture.env);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Report;
}

function statusLines(result: Spawned): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
}

function pnpmArgv(version: 10 | 12, args: readonly string[]): string[] {
  const [file, prefix] = pnpmCommand(version);
  return [file, ...prefix, ...args];
}

const both = (result: Spawned): string => `${result.stdout}\n${result.stderr}`;

for (const version of PNPM_VERSIONS) {
  test(`pnpm ${version}: lockguard run -- pnpm --filter b add reports the move naming pnpm-lock.yaml, with the plugin's report`, (t) => {
    const fixture: PnpmFixture = pnpmFixture(t, version);
    const result = guarded(fixture, [], pnpmArgv(version, ['--filter', 'b', 'add', `file:${fixture.depY}`]));
    assert.equal(result.code, 0, both(result));
    const lines = statusLines(result);
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? '', /pnpm-lock\.yaml/);
    const { report, events } = status(fixture);
    assert.ok(report.moved?.files.some((file) => file.path === 'pnpm-lock.yaml'));
    assert.ok(
      events.some((event) => event.type === 'hook' && event.source === 'pnpmfile' && event.command === 'add'),
      JSON.stringify(events),
    );
  });

  test(`pnpm ${version}: under refuse, add and install after a manifest edit are refused at the source; the lockfile is unchanged`, (t) => {
    const fixture = pnpmFixture(t, version);
    const lockfile = fixture.read('pnpm-lock.yaml');
    {
      const add = guarded(
        fixture,
        ['--policy', 'refuse'],
        pnpmArgv(version, ['--filter', 'b', 'add', `file:${fixture.depY}`]),
      );
      assert.notEqual(add.code, 0, both(add));
      assert.match(both(add), /ERR_LOCKGUARD_REFUSED/);
      assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
      assert.deepEqual(statusLines(add), [], 'nothing moved');
      // Refused before pnpm resolved anything: by updateConfig, not by pnpm 10's afterAllResolved net.
      const hooks = status(fixture).events.filter((event) => event.type === 'hook' && event.refused === true);
      assert.deepEqual(
        hooks.map((event) => [event.hook, event.command]),
        [['updateConfig', 'add']],
      );
    }
    {
      editManifestOfB(fixture);
      const install = guarded(fixture, ['--policy', 'refuse'], pnpmArgv(version, ['install']));
      assert.notEqual(install.code, 0, both(install));
      assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
    }
  });

  test(`pnpm ${version}: no false positives: a no-op and a frozen install inside a run report nothing (CI set)`, (t) => {
    const fixture = pnpmFixture(t, version);
    for (const args of [['install'], ['install', '--frozen-lockfile']]) {
      const result = guarded(fixture, [], pnpmArgv(version, args), { CI: 'true' });
      assert.equal(result.code, 0, both(result));
      assert.deepEqual(statusLines(result), [], args.join(' '));
    }
  });
}

test('pnpm 12: the auto-install before pnpm run is refused at the source under refuse, and reported under flag', (t) => {
  const fixture = pnpmFixture(t, 12);
  const lockfile = fixture.read('pnpm-lock.yaml');
  editManifestOfB(fixture);
  {
    const refused = guarded(fixture, ['--policy', 'refuse'], pnpmArgv(12, ['--filter', 'b', 'run', 'noop']));
    assert.notEqual(refused.code, 0, both(refused));
    assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
  }
  {
    // Not under CI=true: pnpm then installs frozen by default, and the auto-install fails instead.
    const flagged = guarded(fixture, ['--policy', 'flag'], pnpmArgv(12, ['--filter', 'b', 'run', 'noop']));
    assert.equal(flagged.code, 0, both(flagged));
    assert.notDeepEqual(fixture.read('pnpm-lock.yaml'), lockfile, 'pnpm 12 installed before running');
    assert.equal(statusLines(flagged).length, 1, flagged.stderr);
    assert.match(statusLines(flagged)[0] ?? '', /pnpm-lock\.yaml.*reported only/);
  }
});

test('npm: lockguard run -- npm install <tarball> reports the move with no lifecycle script; npm ci reports nothing', (t) => {
  const base = tempWorkspace(t, {}, 'lockguard-guarded-npm-');
  const root = join(base, 'ws');
  const depX = writeTarball(join(base, 'dep-x-1.0.0.tgz'), 'dep-x', '1.0.0');
  const depY = writeTarball(join(base, 'dep-y-1.0.0.tgz'), 'dep-y', '1.0.0');
  const env = isolatedEnv(join(base, 'home'), { offline: false });
  mkdirSync(root);
  writeTree(root, {
    'package.json': `${JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'], dependencies: { 'dep-x': `file:${depX}` } }, null, 2)}\n`,
    packages: { b: { 'package.json': '{"name":"b","version":"1.0.0"}\n' } },
  });
  const fixture = { root, env };
  const first = spawn('npm', ['install', '--offline'], root, env);
  assert.equal(first.code, 0, both(first));
  {
    const ci = guarded(fixture, [], ['npm', 'ci', '--offline'], { CI: 'true' });
    assert.equal(ci.code, 0, both(ci));
    assert.deepEqual(statusLines(ci), []);
  }
  {
    const lockfile = readFileSync(join(root, 'package-lock.json'));
    const add = guarded(fixture, [], ['npm', 'install', '--offline', '-w', 'b', `file:${depY}`]);
    assert.equal(add.code, 0, both(add));
    assert.notDeepEqual(readFileSync(join(root, 'package-lock.json')), lockfile);
    assert.equal(statusLines(add).length, 1, add.stderr);
    assert.match(statusLines(add)[0] ?? '', /package-lock\.json/);
    const { events } = status(fixture);
    assert.equal(events.filter((event) => event.type === 'hook').length, 0, 'no lifecycle script is configured');
  }
});
