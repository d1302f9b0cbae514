// `lockguard doctor`'s `slice-hooks` check: where a workspace uses per-project slice files, whether its
// installs rewrite them (pnpm 10's pnpmfile, the root prepare hook for npm, pnpm 12, yarn v1 and bun, yarn
// berry's committed plugin), with the fix; nothing where the workspace does not use them.

import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { HOOK_SCRIPT } from '../../lib/integrations/npm/scripts.js';
import { cliProcess } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { linkPnpmBin, REPO_ROOT } from '../helpers/tools.js';
import { pnpmTree, tempWorkspace, type Tree } from '../helpers/workspace.js';

interface Check {
  check: string;
  level: string;
  detail: string;
  fix?: string;
}

const RECORD = { '.lockguard': { 'slice-files.json': '{"version":1,"lockfile":"x","digest":null,"files":[]}\n' } };

// A process per doctor: Node caches a package.json it found missing for the life of a process, and these tests
// install lockguard between two doctors.
async function sliceHooks(root: string, env: Record<string, string> = {}): Promise<Check | undefined> {
  const result = cliProcess(['doctor', '--json'], root, scrubbedEnv(env));
  return (JSON.parse(result.stdout) as Check[]).find((check) => check.check === 'slice-hooks');
}

/** lockguard installed in the workspace (this checkout, linked as node_modules/lockguard), as the hooks load it. */
function installLockguard(root: string): void {
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  symlinkSync(REPO_ROOT, join(root, 'node_modules', 'lockguard'));
}

/**
 * The hook script in place but lockguard not installed: a warning that the hook does nothing (doctor once said
 * ok from the script's text alone); then installed: ok.
 */
async function okOnceInstalled(root: string, env: Record<string, string> = {}): Promise<Check | undefined> {
  const bare = await sliceHooks(root, env);
  assert.equal(bare?.level, 'warn', bare?.detail);
  assert.match(
    bare?.detail ?? '',
    /lockguard does not resolve from the workspace root \(not installed here\), so the hook exits doing nothing/,
  );
  assert.match(bare?.fix ?? '', /Add lockguard as a root devDependency/);
  installLockguard(root);
  return await sliceHooks(root, env);
}

function withPostinstall(root: string, manifest: Record<string, unknown>): void {
  writeFileSync(join(root, 'package.json'), JSON.stringify({ ...manifest, scripts: { postinstall: HOOK_SCRIPT } }));
}

test('npm: no check where slice files are unused; a warning with the fix where used; ok with the root postinstall hook', async (t) => {
  const manifest = { name: 'root', private: true };
  const tree: Tree = {
    'package.json': JSON.stringify(manifest),
    'package-lock.json': JSON.stringify({
      name: 'root',
      lockfileVersion: 3,
      requires: true,
      packages: { '': manifest },
    }),
  };
  assert.equal(await sliceHooks(tempWorkspace(t, tree)), undefined);
  const root = tempWorkspace(t, { ...tree, ...RECORD });
  const before = await sliceHooks(root);
  assert.equal(before?.level, 'warn');
  assert.match(before?.detail ?? '', /npm installs do not rewrite the slice files/);
  assert.match(before?.fix ?? '', /lockguard init --npm-scripts/);
  withPostinstall(root, manifest);
  assert.equal((await okOnceInstalled(root))?.level, 'ok');
});

test('pnpm 12: the pnpmfile does not count (its hooks cannot see an install end); the root postinstall hook does', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree("lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n"), ...RECORD });
  writeFileSync(join(root, '.pnpmfile.cjs'), "module.exports = require('lockguard/pnpmfile')\n");
  linkPnpmBin(root, 'pnpm12');
  const before = await sliceHooks(root, { PATH: '' });
  assert.equal(before?.level, 'warn', before?.detail);
  assert.match(before?.detail ?? '', /pnpm 12 installs do not rewrite the slice files/);
  withPostinstall(root, { name: 'root', private: true });
  assert.equal((await okOnceInstalled(root, { PATH: '' }))?.level, 'ok');
});

test("yarn berry: ok once lockguard's plugin is committed in .yarnrc.yml", async (t) => {
  const root = tempWorkspace(t, {
    'package.json': JSON.stringify({ name: 'root', private: true, packageManager: 'yarn@4.18.1' }),
    'yarn.lock': '__metadata:\n  version: 8\n  cacheKey: 10c0\n',
    ...RECORD,
  });
  const before = await sliceHooks(root);
  assert.equal(before?.level, 'warn', before?.detail);
  assert.match(before?.fix ?? '', /yarn plugin import/);
  writeFileSync(join(root, '.yarnrc.yml'), 'plugins:\n  - path: .yarn/plugins/lockguard.cjs\n');
  assert.equal((await sliceHooks(root))?.level, 'ok');
});

test('yarn v1 and bun: the root prepare hook, never a yarn plugin (yarn v1 has none)', async (t) => {
  for (const [lockfile, text, name] of [
    ['yarn.lock', '# yarn lockfile v1\n\n', 'yarn v1'],
    [
      'bun.lock',
      '{\n  "lockfileVersion": 1,\n  "workspaces": {\n    "": {\n      "name": "root",\n    },\n  },\n  "packages": {\n  }\n}\n',
      'bun',
    ],
  ] as const) {
    const manifest = { name: 'root', private: true };
    const root = tempWorkspace(t, { 'package.json': JSON.stringify(manifest), [lockfile]: text, ...RECORD });
    const before = await sliceHooks(root);
    assert.equal(before?.level, 'warn', before?.detail);
    assert.match(
      before?.detail ?? '',
      new RegExp(`^${name} installs do not rewrite the slice files \\(no root prepare hook\\)`),
    );
    assert.doesNotMatch(`${before?.detail} ${before?.fix}`, /plugin/);
    assert.equal(before?.fix, 'lockguard init --npm-scripts.');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...manifest, scripts: { prepare: HOOK_SCRIPT } }));
    const after = await okOnceInstalled(root);
    assert.equal(after?.level, 'ok', after?.detail);
    assert.match(after?.detail ?? '', /the root prepare hook/);
  }
});
