// `lockguard doctor`: read-only checks with fixes.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, cliProcess } from '../../helpers/cli.js';
import { HOOK_SCRIPT } from '../../../lib/integrations/npm/scripts.js';
import { PNPMFILE_SHIM } from '../../../lib/integrations/pnpmfile/shim.js';
import { repoRoot } from '../../helpers/fixtures.js';
import { cloneRuns } from '../../helpers/ledger-runs.js';
import { linkPnpmBin } from '../../helpers/tools.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";

interface Check {
  check: string;
  level: string;
}

test('doctor reports each check, warns on a missing shim and an out-of-step install, writes nothing', async (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const result = await cli(['doctor', '--json'], root);
  assert.equal(result.code, 0, result.stderr);
  const checks = JSON.parse(result.stdout) as Check[];
  const level = (name: string): string | undefined => checks.find((check) => check.check === name)?.level;
  assert.equal(level('table'), 'ok');
  assert.equal(level('install'), 'warn');
  assert.equal(level('pnpmfile'), 'warn');
  assert.equal(fs.existsSync(join(root, '.lockguard')), false, 'doctor is read-only');
});

test("doctor's hook checks hold only where the hook can load lockguard (a script or shim that cannot does nothing)", (t) => {
  // It once said "ok npm-hook: root install scripts report to guarded runs" from the script's text alone, in a
  // workspace where lockguard/npm-hook does not resolve, so the hook exits 0 doing nothing.
  const npm = tempWorkspace(t, {
    'package.json': JSON.stringify({ name: 'root', private: true, scripts: { prepare: HOOK_SCRIPT } }),
    'package-lock.json': '{"name":"root","lockfileVersion":3,"requires":true,"packages":{"":{"name":"root"}}}',
  });
  const pnpm = tempWorkspace(t, { ...pnpmTree(LOCK), '.pnpmfile.cjs': PNPMFILE_SHIM });
  const checkOf = (root: string, name: string): { level: string; detail: string } | undefined =>
    (
      JSON.parse(cliProcess(['doctor', '--json'], root).stdout) as { check: string; level: string; detail: string }[]
    ).find((check) => check.check === name);
  for (const [root, name] of [
    [npm, 'npm-hook'],
    [pnpm, 'pnpmfile'],
  ] as const) {
    const bare = checkOf(root, name);
    assert.equal(bare?.level, 'warn', bare?.detail);
    assert.match(bare?.detail ?? '', /lockguard does not resolve from the workspace root \(not installed here\)/);
    fs.mkdirSync(join(root, 'node_modules'), { recursive: true });
    fs.symlinkSync(repoRoot(), join(root, 'node_modules', 'lockguard'));
    const installed = checkOf(root, name);
    assert.equal(installed?.level, 'ok', installed?.detail);
  }
});

test('doctor fails (exit 1) on a broken lockfile and a ledger that is a file, and says how to fix them', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree('<<<<<<< HEAD\n'), '.lockguard': 'x' });
  const result = await cli(['doctor'], root);
  assert.equal(result.code, 1);
  assert.match(result.stdout, /FAIL\s+table/);
  assert.match(result.stdout, /FAIL\s+ledger/);
  assert.match(result.stdout, /fix: /);
});

test('doctor suggests lockguard prune once the ledger holds more than its retention lets pile up, and not before', async (t) => {
  // The default retention (100, pruned after a run once 110 pile up): runs cloned in, no run pruned them.
  const root = tempWorkspace(t, pnpmTree(LOCK));
  cloneRuns(root, 110);
  const few = await cli(['doctor'], root);
  assert.doesNotMatch(few.stdout, /lockguard prune/);
  assert.match(few.stdout, /ok\s+ledger\s+110 runs/);
  cloneRuns(root, 1);
  const many = await cli(['doctor'], root);
  assert.equal(many.code, 0, many.stderr);
  assert.match(
    many.stdout,
    /warn\s+ledger\s+111 runs in .*, over keepRuns 100 plus 10: no run has pruned since \(a run skips the prune while another lockguard command holds the ledger.*\n\s+fix: lockguard prune removes all but the newest 100/,
  );
  // keepRuns "all": nothing is pruned by itself, and doctor waits for 500.
  const all = tempWorkspace(t, {
    ...pnpmTree(LOCK),
    'package.json': '{"name":"root","private":true,"lockguard":{"keepRuns":"all"}}',
  });
  cloneRuns(all, 500);
  assert.doesNotMatch((await cli(['doctor'], all)).stdout, /lockguard prune/);
  cloneRuns(all, 1);
  assert.match(
    (await cli(['doctor'], all)).stdout,
    /warn\s+ledger\s+501 runs in .*keepRuns is "all", so lockguard never removes one by itself\n\s+fix: lockguard prune removes all but the newest 50/,
  );
});

test("doctor on yarn berry, yarn v1 and bun workspaces: what refuse can stop, the install check, turbo's packageManager pin", async (t) => {
  const berry = tempWorkspace(t, {
    'package.json': '{"name":"root","workspaces":["packages/*"]}',
    'yarn.lock': '__metadata:\n  version: 8\n  cacheKey: 10c0\n',
    'turbo.json': '{}',
  });
  const berryChecks = JSON.parse((await cli(['doctor', '--json'], berry)).stdout) as (Check & { detail: string })[];
  const find = (checks: (Check & { detail: string })[], name: string) => checks.find((check) => check.check === name);
  assert.equal(find(berryChecks, 'yarn')?.level, 'ok');
  assert.match(find(berryChecks, 'yarn')?.detail ?? '', /YARN_ENABLE_IMMUTABLE_INSTALLS/);
  assert.equal(find(berryChecks, 'install')?.level, 'warn', 'no .yarn/install-state.gz: nothing installed');
  assert.equal(find(berryChecks, 'turbo')?.level, 'warn', 'turbo.json without packageManager');
  const classic = tempWorkspace(t, {
    'package.json': '{"name":"root","packageManager":"yarn@1.22.22"}',
    'yarn.lock': '# yarn lockfile v1\n\n',
    'turbo.json': '{}',
  });
  const classicChecks = JSON.parse((await cli(['doctor', '--json'], classic)).stdout) as (Check & { detail: string })[];
  // yarn v1's own limit is a note, as bun's; what guards it instead is said (the table's file events, the final check).
  assert.equal(find(classicChecks, 'yarn')?.level, 'ok');
  assert.match(find(classicChecks, 'yarn')?.detail ?? '', /yarn v1 has no plugins.*caught by the table/);
  assert.equal(find(classicChecks, 'turbo'), undefined, 'pinned: no turbo warning');
  const bun = tempWorkspace(t, { 'package.json': '{"name":"root"}', 'bun.lockb': Buffer.from([0, 1, 2]) });
  const bunChecks = JSON.parse((await cli(['doctor', '--json'], bun)).stdout) as (Check & { detail: string })[];
  // bun's own limit is a note, not a warning about this setup.
  assert.equal(find(bunChecks, 'bun')?.level, 'ok');
  assert.equal(find(bunChecks, 'slices')?.level, 'warn', 'bun.lockb has no slices');
  assert.equal(fs.existsSync(join(bun, '.lockguard')), false, 'doctor is read-only');
});

test('doctor says which turbo binary lockguard run starts where turbo is configured: the native one, or the command as given', async (t) => {
  const launcherPackage = fs.realpathSync(join(repoRoot(), 'node_modules', 'turbo'));
  const native = createRequire(join(launcherPackage, 'bin', 'turbo')).resolve(
    `@turbo/${process.platform}-${process.arch === 'x64' ? '64' : process.arch}/bin/turbo`,
  );
  const installed = tempWorkspace(t, { ...pnpmTree(LOCK), 'turbo.json': '{}' });
  fs.mkdirSync(join(installed, 'node_modules', '.bin'), { recursive: true });
  fs.symlinkSync(launcherPackage, join(installed, 'node_modules', 'turbo'));
  fs.symlinkSync('../turbo/bin/turbo', join(installed, 'node_modules', '.bin', 'turbo'));
  const env = { PATH: '/usr/bin:/bin' };
  const detail = (checks: (Check & { detail: string })[]): string | undefined =>
    checks.find((check) => check.check === 'turbo-bin')?.detail;
  const onInstalled = JSON.parse((await cli(['doctor', '--json'], installed, env)).stdout) as (Check & {
    detail: string;
  })[];
  assert.equal(
    detail(onInstalled),
    `lockguard run -- turbo starts ${native} itself, as turbo's launcher would (one Node start fewer)`,
  );
  const bare = tempWorkspace(t, { ...pnpmTree(LOCK), 'turbo.json': '{}' });
  assert.match(
    detail(JSON.parse((await cli(['doctor', '--json'], bare, env)).stdout) as (Check & { detail: string })[]) ?? '',
    /no turbo is installed/,
  );
  const none = tempWorkspace(t, pnpmTree(LOCK));
  assert.equal(
    detail(JSON.parse((await cli(['doctor', '--json'], none, env)).stdout) as (Check & { detail: string })[]),
    undefined,
    'no turbo.json: nothing said',
  );
});

test('doctor and plan name the pnpm that runs: pnpm 10 itself where .npmrc turns managePackageManagerVersions off, else the pin it switches to', async (t) => {
  for (const npmrc of [undefined, 'manage-package-manager-versions=false\n']) {
    const root = tempWorkspace(t, {
      ...pnpmTree(LOCK),
      'package.json': '{"name":"root","private":true,"packageManager":"pnpm@12.4.2"}\n',
      ...(npmrc === undefined ? {} : { '.npmrc': npmrc }),
    });
    const bin = linkPnpmBin(root, 'pnpm10');
    const doctor = await cli(['doctor'], root, { PATH: '' });
    const plan = await cli(['plan', '--', 'true'], root, { PATH: '' });
    if (npmrc === undefined) {
      assert.equal(
        doctor.stdout.split('\n').find((line) => line.startsWith('ok    pnpm ')),
        'ok    pnpm      pnpm 12.4.2 (pinned in packageManager; pnpm 10.34.8 on PATH switches to it) runs here',
      );
      assert.equal(
        plan.stdout.split('\n')[0],
        `lockguard plan: command, 1 task, lockfile pnpm-lock.yaml, pnpm 12.4.2 (${bin})`,
      );
    } else {
      assert.equal(
        doctor.stdout.split('\n').find((line) => line.startsWith('ok    pnpm ')),
        `ok    pnpm      pnpm 10.34.8 (${bin}; manage-package-manager-versions=false in .npmrc: it does not switch to pnpm 12.4.2, the packageManager pin) runs here`,
      );
      assert.equal(
        plan.stdout.split('\n')[0],
        `lockguard plan: command, 1 task, lockfile pnpm-lock.yaml, pnpm 10.34.8 (${bin})`,
      );
    }
  }
});

test("doctor's nx check: a guarded nx (20 to 23 through its task DB, 24 by the folder) passes; an nx it cannot guard fails, named, with the fix", async (t) => {
  const nxCheck = async (
    root: string,
    env: Record<string, string> = {},
  ): Promise<(Check & { detail: string; fix?: string }) | undefined> =>
    (
      JSON.parse((await cli(['doctor', '--json'], root, env)).stdout) as (Check & { detail: string; fix?: string })[]
    ).find((check) => check.check === 'nx');
  const linked = (pkg: string): string => {
    const root = tempWorkspace(t, { ...pnpmTree(LOCK), 'nx.json': '{}\n' });
    fs.mkdirSync(join(root, 'node_modules'));
    fs.symlinkSync(join(repoRoot(), 'node_modules', pkg), join(root, 'node_modules', 'nx'));
    return root;
  };
  const nx22 = linked('nx22');
  const on22 = await nxCheck(nx22);
  assert.equal(on22?.level, 'ok');
  assert.match(
    on22?.detail ?? '',
    /^nx 22\.6\.3 is guarded: its task DB answers hits by itself, so lockguard first marks/,
  );
  const on24 = await nxCheck(linked('nx'));
  assert.equal(on24?.level, 'ok');
  assert.match(on24?.detail ?? '', /^nx 24\.0\.6 is guarded: a withheld entry's folder leaving the cache is a miss$/);
  // NX_CACHE_FAILURES=true makes nx 22 replay a row marked failed: not guardable, and the fix says which setting.
  const failures = await nxCheck(nx22, { NX_CACHE_FAILURES: 'true' });
  assert.equal(failures?.level, 'fail');
  assert.equal(failures?.fix, 'Unset NX_CACHE_FAILURES where lockguard guards the run.');
  // An nx older than 20 (its package.json is what doctor reads): fails, exit 1, with the upgrade.
  const old = tempWorkspace(t, {
    ...pnpmTree(LOCK),
    'nx.json': '{}\n',
    node_modules: { nx: { 'package.json': '{"name":"nx","version":"19.8.15"}' } },
  });
  const result = await cli(['doctor'], old);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /FAIL\s+nx\s+nx 19\.8\.15 is older than lockguard can guard \(nx 20 to 24\): lockguard run moves none of its stale entries, and nx may replay them/,
  );
  assert.match(result.stdout, /fix: Upgrade nx to nx 20 to 24 \(nx migrate\)\./);
  // nx.json with no nx installed: its cache cannot be resolved, so a failure with the fix; no nx at all: nothing said.
  const missing = await nxCheck(tempWorkspace(t, { ...pnpmTree(LOCK), 'nx.json': '{}\n' }));
  assert.equal(missing?.level, 'fail');
  assert.match(missing?.detail ?? '', /^the nx cache is not guarded: no nx resolves from the workspace root/);
  assert.match(missing?.fix ?? '', /^Install the workspace so the nx your command starts resolves/);
  assert.equal(await nxCheck(tempWorkspace(t, pnpmTree(LOCK))), undefined);
});

test("doctor's sound-keys check: a turbo.json it cannot read is a warning naming the file and the fix, never its bytes", async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(LOCK), 'turbo.json': '{ "tasks": { "build": { SECRET_VALUE } } }' });
  const result = await cli(['doctor', '--json'], root);
  const check = (JSON.parse(result.stdout) as (Check & { detail: string; fix?: string })[]).find(
    (entry) => entry.check === 'sound-keys',
  );
  assert.equal(check?.level, 'warn');
  assert.ok(check?.detail.includes(join(root, 'turbo.json')), check?.detail);
  assert.match(check?.detail ?? '', /line 1, column/);
  assert.doesNotMatch(result.stdout, /SECRET_VALUE/);
  assert.match(check?.fix ?? '', /Fix the file/);
});
