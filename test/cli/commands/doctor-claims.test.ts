// doctor's runner and pnpm lines say what is true here (issue 28): a pnpm behind a version-manager shim is
// found (its version unknown), not "no pnpm found"; an nx that is only Lerna's dependency in a turbo-only
// repository is no guarded nx; turbo 2.5's launcher is named as what it is, and a missing turbo as missing;
// the unwritten slice files are counted by project, not by task.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { soundCheckOf, findingsOf } from '../../../lib/integrations/sound-keys/findings.js';
import { cli } from '../../helpers/cli.js';
import { repoRoot } from '../../helpers/fixtures.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";

interface Check {
  readonly check: string;
  readonly level: string;
  readonly detail: string;
  readonly fix?: string;
}

async function checks(root: string, env: Record<string, string> = {}): Promise<Check[]> {
  return JSON.parse((await cli(['doctor', '--json'], root, env)).stdout) as Check[];
}

function link(root: string, name: string, target: string): void {
  fs.mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
  fs.symlinkSync(target, join(root, 'node_modules', name));
}

test('a pnpm behind an asdf/mise-style shim, no packageManager pin: its version asked of it; a mute one found, version unknown, never "no pnpm found"', async (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const bin = join(root, 'shims');
  fs.mkdirSync(bin);
  const real = join(repoRoot(), 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs');
  fs.writeFileSync(join(bin, 'pnpm'), `#!/bin/sh\nexec "${process.execPath}" "${real}" "$@"\n`, { mode: 0o755 });
  // A launcher that answers pnpm --version: found, and its version is the one it says.
  const pnpm = (await checks(root, { PATH: `${bin}:/usr/bin:/bin` })).find((check) => check.check === 'pnpm');
  assert.equal(pnpm?.level, 'ok');
  assert.equal(pnpm?.detail, `pnpm 10.34.8 (${join(bin, 'pnpm')}, a launcher that said so) runs here`);
  // One that cannot say (a broken shim): found on PATH, version unknown, with the fix; never "no pnpm found".
  fs.writeFileSync(join(bin, 'pnpm'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  const mute = (await checks(root, { PATH: `${bin}:/usr/bin:/bin` })).find((check) => check.check === 'pnpm');
  assert.equal(mute?.level, 'warn');
  assert.match(mute?.detail ?? '', new RegExp(`^pnpm on PATH \\(${join(bin, 'pnpm').replaceAll('/', '\\/')}\\)`));
  assert.doesNotMatch(mute?.detail ?? '', /no pnpm found/);
  assert.match(mute?.fix ?? '', /"packageManager": "pnpm@/);
  // With no pnpm anywhere, the line says so.
  const none = (await checks(root, { PATH: '/nonexistent' })).find((check) => check.check === 'pnpm');
  assert.equal(none?.detail, 'no pnpm found on PATH, and none pinned in packageManager');
});

test("a turbo-only repository where nx is only Lerna's dependency (hoisted, no nx.json, no lerna.json): no nx line at all", async (t) => {
  const root = tempWorkspace(t, {
    ...pnpmTree(LOCK),
    'package.json': '{"name":"root","private":true,"devDependencies":{"lerna":"9.0.7","turbo":"2.11.11"}}',
    'turbo.json': '{"tasks":{"build":{}}}',
  });
  link(root, 'lerna', join(repoRoot(), 'node_modules', 'lerna'));
  link(root, 'nx', join(repoRoot(), 'node_modules', 'nx22'));
  assert.equal(
    (await checks(root)).find((check) => check.check === 'nx'),
    undefined,
    'nx is no runner of this workspace: nothing is said of it as guarded',
  );
  // With lerna.json, `lerna run` runs Lerna's nx: named as Lerna's.
  fs.writeFileSync(join(root, 'lerna.json'), '{"version":"0.0.0"}');
  fs.unlinkSync(join(root, 'node_modules', 'nx'));
  const nx = (await checks(root)).find((check) => check.check === 'nx');
  assert.equal(nx?.level, 'ok', JSON.stringify(nx));
  assert.match(nx?.detail ?? '', /^nx 22\.\d+\.\d+ \(Lerna's own: lerna run starts it\) is guarded: /);
});

test("turbo 2.5's launcher is named as installed and started as given; a missing turbo is said missing", async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(LOCK), 'turbo.json': '{"tasks":{"build":{}}}' });
  const missing = (await checks(root, { PATH: '/nonexistent' })).find((check) => check.check === 'turbo-bin');
  assert.equal(missing?.level, 'warn');
  assert.equal(
    missing?.detail,
    'turbo.json is here but no turbo is installed (node_modules/.bin or PATH): a turbo command will not start',
  );
  link(root, 'turbo', join(repoRoot(), 'node_modules', 'turbo25'));
  fs.symlinkSync(join(root, 'node_modules', 'turbo', 'bin', 'turbo'), join(root, 'node_modules', '.bin', 'turbo'));
  const old = (await checks(root, { PATH: '/nonexistent' })).find((check) => check.check === 'turbo-bin');
  assert.equal(old?.level, 'ok');
  assert.equal(
    old?.detail,
    'turbo 2.5.8 is installed; its launcher (older than 2.8.18) starts its platform binary its own way, so lockguard run starts it as given (one Node start more than turbo 2.8.18 and newer)',
  );
});

test('unwritten slice files are counted by project: 3 tasks of one project are 1 project', (t) => {
  const root = tempWorkspace(t, { packages: { a: {} } });
  const file = 'packages/a/.lockguard-slice';
  const found = findingsOf(
    ['a#build', 'a#test', 'a#lint'].map((id) => ({ id, file, folds: true })),
    root,
  );
  assert.equal(
    soundCheckOf('turbo', found).detail,
    'every cached turbo task names its .lockguard-slice, but 1 project has none written yet (their 3 tasks: a#build, a#test, a#lint)',
  );
});
