// The pnpmfile plugin inside real pnpm 10 and 12: reports to live runs, refuses lockfile rewrites at the
// source under `refuse`, and stays out of the way outside a run (fresh clone included).

import assert from 'node:assert/strict';
import { rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  editManifestOfB,
  installFixturesOncePerFile,
  liveRun,
  PNPM_VERSIONS,
  pnpmFixture,
  type Spawned,
} from '../helpers/hooks.js';

// One install per pnpm version for the file, a private copy per test (hooks.ts).
installFixturesOncePerFile();

function output(result: Spawned): string {
  return `${result.stdout}\n${result.stderr}`;
}

function hooksBy(events: ReturnType<ReturnType<typeof liveRun>['hookEvents']>, command: string): typeof events {
  return events.filter(
    (event) => event['source'] === 'pnpmfile' && event['hook'] === 'updateConfig' && event['command'] === command,
  );
}

for (const version of PNPM_VERSIONS) {
  test(`pnpm ${version}: the plugin reports install, run and add to the run LOCKGUARD_RUN names, and to every live run when the env is stripped`, (t) => {
    const fixture = pnpmFixture(t, version);
    const named = liveRun(t, fixture.root, 'flag');
    const other = liveRun(t, fixture.root, 'withhold');
    {
      // LOCKGUARD_RUN set: only the named run hears about the install.
      const result = fixture.pnpm(['install'], { LOCKGUARD_RUN: named.dir });
      assert.equal(result.code, 0, output(result));
      const reports = hooksBy(named.hookEvents(), 'install');
      assert.equal(reports.length, 1);
      assert.equal(typeof reports[0]?.['pid'], 'number');
      assert.equal(reports[0]?.['refused'], undefined);
      assert.equal(hooksBy(other.hookEvents(), 'install').length, 0);
    }
    {
      // Env stripped (as turbo's strict mode does): both live runs hear about `pnpm run`.
      const result = fixture.pnpm(['--filter', 'b', 'run', 'noop']);
      assert.equal(result.code, 0, output(result));
      assert.equal(hooksBy(named.hookEvents(), 'run').length, 1);
      assert.equal(hooksBy(other.hookEvents(), 'run').length, 1);
    }
    {
      // `pnpm add` is reported (flag and withhold refuse nothing: the add goes through).
      const before = fixture.read('pnpm-lock.yaml');
      const result = fixture.pnpm(['--filter', 'b', 'add', fixture.depY]);
      assert.equal(result.code, 0, output(result));
      assert.notDeepEqual(fixture.read('pnpm-lock.yaml'), before);
      assert.equal(hooksBy(named.hookEvents(), 'add').length, 1);
      assert.equal(hooksBy(other.hookEvents(), 'add').length, 1);
    }
  });

  test(`pnpm ${version}: under refuse, install after a manifest edit, the auto-install before run/exec, and --filter b add are refused at the source`, (t) => {
    const fixture = pnpmFixture(t, version);
    const run = liveRun(t, fixture.root, 'refuse');
    const lockfile = fixture.read('pnpm-lock.yaml');
    {
      // A no-op install is let through: frozen, it has nothing to write.
      const result = fixture.pnpm(['install']);
      assert.equal(result.code, 0, output(result));
      assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
    }
    const manifestOfB = fixture.read('packages/b/package.json');
    editManifestOfB(fixture);
    {
      // `pnpm install` after the edit: frozen by updateConfig, it fails and writes nothing.
      const result = fixture.pnpm(['install']);
      assert.notEqual(result.code, 0);
      assert.match(output(result), /ERR_PNPM_OUTDATED_LOCKFILE/);
      assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
    }
    {
      // `pnpm run` (pnpm 12 would install first): verifyDepsBeforeRun=error stops it, nothing written.
      const result = fixture.pnpm(['--filter', 'b', 'run', 'noop']);
      assert.notEqual(result.code, 0);
      assert.match(output(result), /ERR_PNPM_VERIFY_DEPS_BEFORE_RUN/);
      assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
    }
    {
      // `pnpm exec` likewise.
      const result = fixture.pnpm(['--filter', 'b', 'exec', 'true']);
      assert.notEqual(result.code, 0);
      assert.match(output(result), /ERR_PNPM_VERIFY_DEPS_BEFORE_RUN/);
      assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
    }
    writeFileSync(join(fixture.root, 'packages', 'b', 'package.json'), manifestOfB);
    {
      // `pnpm --filter b add`: frozenLockfile does not stop it, the plugin refuses it before it starts.
      const result = fixture.pnpm(['--filter', 'b', 'add', fixture.depY]);
      assert.notEqual(result.code, 0);
      assert.match(output(result), /ERR_LOCKGUARD_REFUSED/);
      assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
      assert.deepEqual(fixture.read('packages/b/package.json'), manifestOfB);
      assert.equal(existsSync(join(fixture.root, 'packages', 'b', 'node_modules', 'dep-y')), false);
    }
    const refused = run
      .hookEvents()
      .filter((event) => event['refused'] === true)
      .map((event) => event['command']);
    assert.deepEqual(refused, ['install', 'install', 'run', 'exec', 'add']);
  });

  test(`pnpm ${version}: outside a run the plugin writes nothing and returns pnpm's config object, and a fresh clone installs before lockguard is there`, (t) => {
    const fixture = pnpmFixture(t, version, { install: false });
    {
      // A fresh clone's first install: lockguard is not installed yet, the shim loads nothing.
      const result = fixture.pnpm(['install']);
      assert.equal(result.code, 0, output(result));
      assert.equal(existsSync(join(fixture.root, 'node_modules', 'lockguard')), true);
    }
    {
      // CI's first install of the committed lockfile, lockguard absent again: the checksum still matches.
      rmSync(join(fixture.root, 'node_modules'), { recursive: true, force: true });
      const result = fixture.pnpm(['install', '--frozen-lockfile']);
      assert.equal(result.code, 0, output(result));
    }
    {
      // With the plugin loaded: install, run and add work as without it, and nothing is written for lockguard.
      for (const args of [
        ['install', '--frozen-lockfile'],
        ['--filter', 'b', 'run', 'noop'],
        ['--filter', 'b', 'add', fixture.depY],
      ]) {
        const result = fixture.pnpm(args);
        assert.equal(result.code, 0, output(result));
      }
      assert.equal(existsSync(join(fixture.root, '.lockguard')), false);
    }
    {
      // pnpm's own config object comes back from the plugin's updateConfig, and it is the only hook.
      writeFileSync(
        join(fixture.root, '.pnpmfile.cjs'),
        `const fs = require('fs')
const plugin = require('lockguard/pnpmfile')
module.exports = { hooks: { updateConfig(config) {
  const out = plugin.hooks.updateConfig(config)
  fs.writeFileSync(${JSON.stringify(join(fixture.root, 'probe.json'))}, JSON.stringify({ same: out === config, hooks: Object.keys(plugin.hooks), exports: Object.keys(plugin).sort() }))
  return out
} } }
`,
      );
      const result = fixture.pnpm(['--filter', 'b', 'run', 'noop'], {
        pnpm_config_verify_deps_before_run: 'false',
        npm_config_verify_deps_before_run: 'false',
      });
      assert.equal(result.code, 0, output(result));
      const probe = JSON.parse(readFileSync(join(fixture.root, 'probe.json'), 'utf8')) as unknown;
      assert.deepEqual(probe, {
        same: true,
        hooks: ['updateConfig'],
        exports: ['PNPMFILE_SHIM', 'hooks', 'withLockguard'],
      });
      assert.equal(existsSync(join(fixture.root, '.lockguard')), false);
    }
  });
}
